/// `extension_error`: an extension handler threw. Command failures use
/// `extensionPath:"command:<name>"` and `event:"command"`.
package struct PiExtensionError: Sendable, Hashable {
    package var extensionPath: String?
    package var event: String?
    package var error: String?

    package init(extensionPath: String? = nil, event: String? = nil, error: String? = nil) {
        self.extensionPath = extensionPath
        self.event = event
        self.error = error
    }
}
