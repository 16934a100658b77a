import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import SupervisorIO
#endif

/// Answers the control socket: daemon status, the `plugins.*` methods, `stop`, and the session
/// methods (`SessionControl`).
package struct ControlRouter: ControlHandler {
    package let host: PluginHost
    package let sessionControl: SessionControl
    package let terminalAttach: TerminalAttach
    package let status: DaemonStatus
    package let pairing: PairingDesk
    package let scheduleControl: ScheduleControl
    /// Asks the daemon to shut down.
    package let stopper: @Sendable () async -> Void

    package func handle(_ method: ControlMethod, params: JSONValue, stream: ControlStream) async throws -> JSONValue? {
        switch method {
        case .ping, .version:
            return ["version": .string(Version.current), "pid": JSONValue(Int(getpid()))]
        case .status:
            return await status.json(figures: true)
        case .plugins:
            return await host.status()
        case .pluginsReload:
            let reloaded = await host.reload()
            return ["added": .array(reloaded.added.map { .string($0) }), "removed": .array(reloaded.removed.map { .string($0) })]
        case .pluginsRestart:
            guard let name = params["name"]?.stringValue else { throw RemoteError.invalidParams("plugins.restart needs a name") }
            try await host.restart(name)
            return ["restarted": .string(name)]
        case .pluginsCall:
            // A debugging door into any plugin: a request (retried across crashes) or an
            // acknowledged delivery (kept in the outbox until acked).
            guard let name = params["name"]?.stringValue, let method = params["method"]?.stringValue else {
                throw RemoteError.invalidParams("plugins.call needs name and method")
            }
            guard let slot = await host.slot(name) else { throw RemoteError(code: .notFound, message: "no plugin named \(name)") }
            let callParams = params["params"] ?? [:]
            if params["deliver"]?.boolValue == true {
                let id = try await slot.deliver(method, params: callParams)
                return ["delivered": .string(id)]
            }
            let timeout = Duration.milliseconds(params["timeoutMs"]?.intValue ?? 30_000)
            return try await slot.request(method, params: callParams, timeout: timeout)
        case .pair:
            return try await pairing.pair(params: params, stream: stream)
        case .pairSession:
            return try await pairing.pairSession(params: params)
        case .usersRevoke:
            return try await pairing.revoke(params: params)
        case .scheduleAdd, .scheduleList, .scheduleRemove:
            return try await scheduleControl.handle(method, params: params)
        case .attach:
            return try await terminalAttach.serve(params: params, requestID: stream.requestID, stream: stream)
        case .stop:
            let stopper = stopper
            // Unstructured on purpose: the reply must go out before the daemon tears down.
            Task {
                try? await Task.sleep(for: .milliseconds(50))
                await stopper()
            }
            return ["stopping": true]
        default:
            guard ControlMethod.sessionMethods.contains(method) else { throw RemoteError.methodNotFound(method.rawValue) }
            return try await sessionControl.handle(method: method, params: params, stream: stream)
        }
    }
}
