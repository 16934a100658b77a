import Logging

/// What a session works with, given by `Sessions`: how pi is started, where it logs, whom it
/// tells what happened, and how its record is saved.
package struct SessionServices: Sendable {
    package let launcher: PiLauncher
    package let logger: Logger
    package let observer: any SessionObserver
    package let persist: @Sendable (SessionRecord) async -> Void
}
