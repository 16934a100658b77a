import ArgumentParser
import PiRelaySDK
import Supervisor
import SupervisorIO

extension CompletionKind {
    /// Session names asked of the running daemon when the shell completes a word. A daemon that
    /// is down or slow gives no completions and no error: a completion must never print one.
    static var sessionNames: CompletionKind {
        .custom { _, _, prefix in SessionNameCompletion.names(matching: prefix) }
    }
}

extension ArgumentHelp {
    /// The help of every command's session argument.
    static var session: ArgumentHelp { "Session id, name or unique prefix." }
    /// Where the session may be left out.
    static var optionalSession: ArgumentHelp {
        "Session id, name, unique prefix, pi's pid or its folder (., ~/src/api); optional when there is one session."
    }
}

enum SessionNameCompletion {
    /// The names starting with `prefix`; the ids when no name does (a pasted id's start).
    static func names(matching prefix: String) -> [String] {
        let client = ControlClient(path: Home.resolve().socketPath, timeout: .seconds(2))
        guard let list = try? client.call(.sessions).arrayValue else { return [] }
        let names = list.compactMap { $0["name"]?.stringValue }.filter { $0.hasPrefix(prefix) }
        if !names.isEmpty || prefix.isEmpty { return names }
        return list.compactMap { $0["id"]?.stringValue }.filter { $0.hasPrefix(prefix) }
    }
}
