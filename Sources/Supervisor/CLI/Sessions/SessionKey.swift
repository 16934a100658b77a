import FoundationEssentials
import PiRelaySDK

/// A session as a command names it, for the daemon's `session` parameter: a folder given
/// relative to where the command runs (`.`, `../api`, `~/src/api`) is made absolute, since the
/// daemon does not know where that is; anything else goes as written, and nothing leaves it to
/// the daemon to take the one session there is.
enum SessionKey {
    /// `{"session": …}`, or `{}` for the one session there is.
    static func params(_ argument: String?) -> JSONValue {
        var params: JSONValue = [:]
        params["session"] = json(argument)
        return params
    }

    static func json(_ argument: String?) -> JSONValue? {
        guard let argument else { return nil }
        return .string(folder(argument) ?? argument)
    }

    private static func folder(_ argument: String) -> String? {
        if argument.hasPrefix("~/") { return argument.expandingTilde }
        guard argument == "." || argument == ".." || argument.hasPrefix("./") || argument.hasPrefix("../") else { return nil }
        let absolute = FileManager.default.currentDirectoryPath + "/" + argument
        return absolute.realPath ?? absolute
    }
}
