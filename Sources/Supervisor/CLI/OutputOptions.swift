import ArgumentParser
import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import Supervisor
import SupervisorIO
#endif

/// `--json` for commands a script would want to read.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print machine-readable JSON.")
    var json = false

    func emit(_ value: JSONValue, plain: () -> String) {
        print(json ? value.serialized() : plain())
    }
}

/// Turns errors into a plain message on stderr and a non-zero exit, not a stack of Swift types.
enum CLIFailure {
    static func exit(_ error: any Error, json: Bool = false) -> Never {
        let message: String
        let code: String
        if let remote = error as? RemoteError { message = remote.message; code = remote.code.rawValue } else { message = "\(error)"; code = "error" }
        if json {
            let document: JSONValue = ["error": ["code": .string(code), "message": .string(message)]]
            print(document.serialized())
        } else {
            StandardStreams.writeError("pi-relayd: " + message + "\n")
        }
        Glibc.exit(error is ControlClient.NotRunning ? 3 : 1)
    }
}

extension Home {
    var client: ControlClient { ControlClient(path: socketPath) }
}
