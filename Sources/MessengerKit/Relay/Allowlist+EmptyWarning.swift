import Logging
import PiRelaySDK

extension Allowlist {
    /// At start, an empty allowlist is worth a warning: the bot refuses everyone, and the log is
    /// where an owner looks first. Not in `checkOnly` (setup's token check), where no one writes.
    public func warnIfEmpty(messenger: String, checkOnly: Bool, logger: Logger) {
        guard count == 0, !checkOnly else { return }
        let variable = messenger.uppercased().replacing("-", with: "_") + "_ALLOWED_USERS"
        logger.warning(
            "the allowlist is empty (\(messenger).allowedUsers, \(variable), paired users): everyone is refused; pair someone with pi-relayd pair \(messenger)"
        )
    }
}
