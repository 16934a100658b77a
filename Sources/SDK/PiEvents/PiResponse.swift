/// `{"type":"response", "id"?, "command", "success", "error"?, "data"?}` (spec §2). `id` is absent
/// for the catch-all `parse` failures and unknown commands.
public struct PiResponse: Sendable, Hashable {
    public var id: String?
    public var command: String?
    public var success: Bool?
    public var error: String?
    public var data: PiRawJSON?

    public init(id: String? = nil, command: String? = nil, success: Bool? = nil, error: String? = nil,
                data: PiRawJSON? = nil) {
        self.id = id
        self.command = command
        self.success = success
        self.error = error
        self.data = data
    }
}
