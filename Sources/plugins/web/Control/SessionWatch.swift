import Logging
import PiRelaySDK

/// Keeps the board's sessions list fresh from the control socket while any page is open (no
/// page, no polling: an idle dashboard costs nothing).
struct SessionWatch: Sendable {
    static let interval: Duration = .seconds(1)

    let control: ControlReader
    let board: Board
    let logger: Logger

    func run() async {
        var failing = false
        while !Task.isCancelled {
            if await board.pageCount > 0 {
                do {
                    await board.show(sessions: try await control.call(.sessions))
                    if failing { logger.notice("the control socket answers again") }
                    failing = false
                } catch {
                    if !failing { logger.warning("cannot read the sessions list from \(control.path): \(error)") }
                    failing = true
                }
            }
            try? await Task.sleep(for: Self.interval)
        }
    }
}
