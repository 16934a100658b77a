/// An `extension_ui_request` (spec §4). Which fields are set depends on `method`: dialogs
/// (`select`, `confirm`, `input`, `editor`) need an `extension_ui_response`; the others do not.
package struct PiExtensionUIRequest: Sendable, Hashable {
    package var id: String?
    package var method: String?
    package var title: String?
    package var message: String?
    package var options: [String]?
    package var placeholder: String?
    package var prefill: String?
    /// Milliseconds; absent when the dialog has none.
    package var timeout: Int?
    package var notifyType: String?
    package var statusKey: String?
    /// Absent clears the status key.
    package var statusText: String?
    package var widgetKey: String?
    /// Absent clears the widget.
    package var widgetLines: [String]?
    package var widgetPlacement: String?
    package var text: String?
    /// A terminal session's question that only the terminal can answer (another extension's
    /// dialog the pi-relayd extension can see but not answer): chats show it without answers.
    package var terminalOnly = false

    package init(
        id: String? = nil, method: String? = nil, title: String? = nil, message: String? = nil,
        options: [String]? = nil, placeholder: String? = nil, prefill: String? = nil,
        timeout: Int? = nil, notifyType: String? = nil, statusKey: String? = nil,
        statusText: String? = nil, widgetKey: String? = nil, widgetLines: [String]? = nil,
        widgetPlacement: String? = nil, text: String? = nil, terminalOnly: Bool = false
    ) {
        self.terminalOnly = terminalOnly
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
