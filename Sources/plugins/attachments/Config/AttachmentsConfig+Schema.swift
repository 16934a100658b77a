import PiRelaySDK

extension AttachmentsConfig {
    /// The `attachments:` section as the hello declares it: its keys, so a typo warns with the
    /// nearest one; the values are checked here, in `init(json:)`.
    static let schema = ConfigSchema(
        keys: ["textInlineMaxBytes", "imageMaxBytes", "downloadMaxBytes", "timeoutSeconds", "maxRedirects", "proxy", "transcribe"].map {
            ConfigKey($0, .any)
        })
}
