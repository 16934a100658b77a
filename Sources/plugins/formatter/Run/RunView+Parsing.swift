import PiRelaySDK

extension RunView {
    /// The run view of request params with its text normalised to LF line ends, once, so
    /// everything downstream can split on LF only.
    init(rendering json: JSONValue) throws(RemoteError) {
        self = try RunView(json: json)
        items = items.map { item in
            switch item {
            case .text(let text): .text(Self.normalised(text))
            case .thinking(let text): .thinking(Self.normalised(text))
            case .notice(let kind, let text): .notice(kind, Self.normalised(text))
            case .tools(let calls):
                .tools(
                    calls.map { call in
                        var call = call
                        call.output = Self.normalised(call.output)
                        return call
                    })
            }
        }
    }

    /// CR LF and lone CR become LF. A CR at the very end becomes LF too, so text streamed in
    /// pieces normalises to a prefix of the whole text's normalisation.
    static func normalised(_ text: String) -> String {
        guard ByteSearch.contains(0x0D, in: text[...]) else { return text }
        return text.replacing("\r\n", with: "\n").replacing("\r", with: "\n")
    }
}
