import PiRelaySDK

/// Writes the gateway's resume point off the reader: the reader goes on to the next event while
/// the last point is written. One write at a time, and the newest point is always the last one
/// written. A point not yet written when the plugin dies makes a resume start earlier, and the
/// inbox journal drops what it replays.
///
/// A point is written only after the inbox journal holds what the reader took before it
/// (`journaled`, written beside the reader too): a resume past a message the journal lost would
/// lose the message.
actor ResumeWriter {
    private let store: StateStore
    private let journaled: @Sendable () async -> Void
    private var next: ResumeState?
    private var writing = false

    init(store: StateStore, journaled: @escaping @Sendable () async -> Void) {
        self.store = store
        self.journaled = journaled
    }

    func write(_ state: ResumeState) {
        next = state
        guard !writing else { return }
        writing = true
        // Unstructured on purpose: the gateway's reader must not wait for the disk. The loop
        // ends once no newer point came while it wrote.
        Task { await drain() }
    }

    private func drain() async {
        while let state = next {
            next = nil
            await journaled()
            // Not flushed: a machine that loses it makes the plugin identify anew.
            await store.save(state, to: ResumeState.file, durable: false)
        }
        writing = false
    }
}
