/// `{"type":"response", "id"?, "command", "success", "error"?, "data"?}` (spec §2). `id` is absent
/// for the catch-all `parse` failures and unknown commands.
package struct PiResponse: Sendable, Hashable {
    package var id: String?
    package var command: String?
    package var success: Bool?
    package var error: String?
    package var data: PiRawJSON?

    package init(
        id: String? = nil, command: String? = nil, success: Bool? = nil, error: String? = nil,
        data: PiRawJSON? = nil
    ) {
        self.id = id
        self.command = command
        self.success = success
        self.error = error
        self.data = data
    }

    /// `new_session`, `switch_session` and `fork` succeed with `{cancelled: true}` when an
    /// extension vetoed them (pi-rpc §2): nothing happened, and the run going on goes on.
    package var vetoed: Bool {
        success == true && (try? data?.parse())?["cancelled"]?.boolValue == true
    }
}
