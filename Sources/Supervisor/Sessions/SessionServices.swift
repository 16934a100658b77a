import Logging

/// What a session works with, given by `Sessions`: how pi is started, where it logs, whom it
/// tells what happened, and how its record is saved.
struct SessionServices: Sendable {
    let launcher: PiLauncher
    let logger: Logger
    let observer: any SessionObserver
    let persist: @Sendable (SessionRecord) async -> Void
}
