/// `extension_error`: an extension handler threw. Command failures use
/// `extensionPath:"command:<name>"` and `event:"command"`.
public struct PiExtensionError: Sendable, Hashable {
    public var extensionPath: String?
    public var event: String?
    public var error: String?

    public init(extensionPath: String? = nil, event: String? = nil, error: String? = nil) {
        self.extensionPath = extensionPath
        self.event = event
        self.error = error
    }
}
