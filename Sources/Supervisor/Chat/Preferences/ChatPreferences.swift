import FoundationEssentials
import Logging

/// Every chat's preferences (`ChatPreference`), saved on each change. Delivery asks them for
/// every post, so they are held in memory; a save that fails is logged and kept trying.
package actor ChatPreferences {
    private let store: StateFile<ChatPreference>
    private let failures: StateFailures
    private let logger: Logger
    private let defaults: ChatSettings
    private let notify: NotifySettings
    private var preferences: [String: ChatPreference] = [:]

    package init(
        store: StateFile<ChatPreference>, saved: [ChatPreference], defaults: ChatSettings, notify: NotifySettings, logger: Logger,
        failures: StateFailures = StateFailures()
    ) {
        self.failures = failures
        self.store = store
        self.logger = logger
        self.defaults = defaults
        self.notify = notify
        for preference in saved { preferences[preference.key] = preference }
    }

    package func progress(_ key: String) -> ProgressMode { preferences[key]?.progress ?? defaults.progress }

    package func pausedSince(_ key: String) -> Date? { preferences[key]?.pausedSince }

    package func mentions(_ key: String) -> Bool { preferences[key]?.mentions ?? notify.mentions }

    package func setProgress(_ mode: ProgressMode, for key: String) {
        change(key) { $0.progress = mode }
    }

    /// Returns false when the chat was paused already.
    package func pause(_ key: String, at time: Date = Date()) -> Bool {
        guard preferences[key]?.pausedSince == nil else { return false }
        change(key) { $0.pausedSince = time }
        return true
    }

    /// Returns when the pause began, or nil when the chat was not paused.
    package func resume(_ key: String) -> Date? {
        guard let since = preferences[key]?.pausedSince else { return nil }
        change(key) { $0.pausedSince = nil }
        return since
    }

    package func setMentions(_ on: Bool, for key: String) {
        change(key) { $0.mentions = on }
    }

    /// The machine a shared room picked.
    package func machine(_ key: String) -> String? { preferences[key]?.machine }

    package func pick(_ machine: String, for key: String) {
        guard preferences[key]?.machine != machine else { return }
        change(key) { $0.machine = machine }
    }

    private func change(_ key: String, _ edit: (inout ChatPreference) -> Void) {
        var preference = preferences[key] ?? ChatPreference(key: key)
        edit(&preference)
        preferences[key] = preference.isDefault ? nil : preference
        do {
            try store.save(Array(preferences.values))
            failures.saved(store.name)
        } catch {
            if failures.failed(store.name, error) { logger.error("cannot save the chat preferences: \(error); keeping them in memory") }
        }
    }
}
