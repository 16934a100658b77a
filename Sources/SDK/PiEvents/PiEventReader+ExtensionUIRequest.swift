/// `extension_ui_request` lines are rare and small, so they go through the full `JSONValue` parser.
extension PiEventReader {
    func readExtensionUIRequest(_ line: UnsafeRawBufferPointer) throws(PiEventReadError) -> PiEvent {
        let value: JSONValue
        do {
            value = try JSONValue.parse(line)
        } catch let error as JSONParseError {
            throw PiEventReadError(error)
        } catch {
            throw PiEventReadError(kind: .invalidJSON, offset: 0, reason: "\(error)")
        }
        let strings: (JSONValue?) -> [String]? = { member in
            member?.arrayValue.map { $0.compactMap(\.stringValue) }
        }
        let request = PiExtensionUIRequest(
            id: value["id"]?.stringValue,
            method: value["method"]?.stringValue,
            title: value["title"]?.stringValue,
            message: value["message"]?.stringValue,
            options: strings(value["options"]),
            placeholder: value["placeholder"]?.stringValue,
            prefill: value["prefill"]?.stringValue,
            timeout: value["timeout"]?.doubleValue.flatMap { $0.isFinite ? Int(exactly: $0.rounded()) : nil },
            notifyType: value["notifyType"]?.stringValue,
            statusKey: value["statusKey"]?.stringValue,
            statusText: value["statusText"]?.stringValue,
            widgetKey: value["widgetKey"]?.stringValue,
            widgetLines: strings(value["widgetLines"]),
            widgetPlacement: value["widgetPlacement"]?.stringValue,
            text: value["text"]?.stringValue,
            terminalOnly: value["terminalOnly"]?.boolValue == true)
        return PiEvent(type: .extensionUIRequest, payload: .extensionUIRequest(request))
    }
}
