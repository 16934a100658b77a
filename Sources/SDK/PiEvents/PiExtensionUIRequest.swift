/// An `extension_ui_request` (spec §4). Which fields are set depends on `method`: dialogs
/// (`select`, `confirm`, `input`, `editor`) need an `extension_ui_response`; the others do not.
public struct PiExtensionUIRequest: Sendable, Hashable {
    public var id: String?
    public var method: String?
    public var title: String?
    public var message: String?
    public var options: [String]?
    public var placeholder: String?
    public var prefill: String?
    /// Milliseconds; absent when the dialog has none.
    public var timeout: Int?
    public var notifyType: String?
    public var statusKey: String?
    /// Absent clears the status key.
    public var statusText: String?
    public var widgetKey: String?
    /// Absent clears the widget.
    public var widgetLines: [String]?
    public var widgetPlacement: String?
    public var text: String?

    public init(id: String? = nil, method: String? = nil, title: String? = nil, message: String? = nil,
                options: [String]? = nil, placeholder: String? = nil, prefill: String? = nil,
                timeout: Int? = nil, notifyType: String? = nil, statusKey: String? = nil,
                statusText: String? = nil, widgetKey: String? = nil, widgetLines: [String]? = nil,
                widgetPlacement: String? = nil, text: String? = nil) {
        self.id = id
        self.method = method
        self.title = title
        self.message = message
        self.options = options
        self.placeholder = placeholder
        self.prefill = prefill
        self.timeout = timeout
        self.notifyType = notifyType
        self.statusKey = statusKey
        self.statusText = statusText
        self.widgetKey = widgetKey
        self.widgetLines = widgetLines
        self.widgetPlacement = widgetPlacement
        self.text = text
    }
}
