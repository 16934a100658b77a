/// A pi-relayd plugin written in Swift: declare a manifest, handle requests, deliveries and
/// notifications. The runtime does the handshake, framing, correlation, deadlines, acks, dedupe,
/// pings and logging. Mark the conforming type `@main`.
public protocol Plugin: Sendable {
    static var manifest: PluginManifest { get }

    /// Called once after the welcome. Throw `PluginExit.notConfigured` to exit 78.
    init(context: PluginContext) async throws

    /// A request from the supervisor, or an acknowledged delivery (`request.isDelivery`). The
    /// returned value is the response's `result`; a thrown `RemoteError` becomes its `error`.
    func handle(_ request: PluginRequest) async throws -> JSONValue

    /// A notification: no answer is expected.
    func handle(notification method: String, params: JSONValue) async

    /// A request answered on the thread that read it, before any task is scheduled: for quick,
    /// pure work (the formatter's live views), which then costs one thread wake-up instead of
    /// three. Nil (the default) sends the request on to `handle`. It must not block: every line
    /// from pi-relayd waits for it.
    func answerAtOnce(_ request: PluginRequest) -> Result<JSONValue, RemoteError>?

    /// A notification taken on the thread that read it, before any task is scheduled: true
    /// when it was taken, false (the default) to send it on to its lane and `handle`. Asked
    /// only while nothing sent before it waits in its lane, so the lane's order holds. Like
    /// `answerAtOnce`, it must be quick and must not block.
    func takeAtOnce(notification method: String, params: JSONValue) -> Bool

    /// The lane a delivery or notification is handled in: one at a time and in the order sent
    /// within a lane, lanes side by side. One lane for all by default. A messenger may give each
    /// chat (or each chat and urgency) a lane of its own, so a delivery waiting for its
    /// platform's budget in one chat holds up nothing else.
    func lane(of method: String, params: JSONValue) -> String

    /// Reads pi-relayd's input `fd`: `read` with each chunk of bytes as it comes, from one thread
    /// at a time, then `end` once, at the end of input or a read error; `fd` is closed then when
    /// `closingAtEnd`. Called before the welcome, so it cannot use the plugin's own state. By
    /// default a thread of its own reads. A plugin whose work runs on an event loop of its own
    /// may read there instead: a line it takes at once (`takeAtOnce`) then wakes that loop
    /// alone, not a reading thread and then the loop.
    static func readInput(
        fd: Int32, closingAtEnd: Bool, read: @escaping @Sendable (UnsafeRawBufferPointer) -> Void, end: @escaping @Sendable () -> Void)

    /// Long-running work (a gateway connection, say). Returning ends nothing: the plugin keeps
    /// serving until the supervisor shuts it down. Throwing ends the plugin with exit status 1.
    /// Not called when the welcome says `checkOnly`.
    func run() async throws

    /// The supervisor asked the plugin to stop: finish in-flight work quickly.
    func shutdown() async
}

extension Plugin {
    /// Ignores notifications by default.
    public func handle(notification method: String, params: JSONValue) async {}
    /// Every request goes to `handle` by default.
    public func answerAtOnce(_ request: PluginRequest) -> Result<JSONValue, RemoteError>? { nil }
    /// Every notification goes to its lane by default.
    public func takeAtOnce(notification method: String, params: JSONValue) -> Bool { false }
    /// Everything in one lane, in the order sent, by default.
    public func lane(of method: String, params: JSONValue) -> String { "" }
    /// Read on a thread of the runtime's own by default.
    public static func readInput(
        fd: Int32, closingAtEnd: Bool, read: @escaping @Sendable (UnsafeRawBufferPointer) -> Void, end: @escaping @Sendable () -> Void
    ) {
        FDLineReader.readChunks(fd: fd, closingAtEnd: closingAtEnd, each: read, end: end)
    }
    /// Nothing long-running by default.
    public func run() async throws {}
    /// Nothing to finish by default.
    public func shutdown() async {}

    /// The executable's entry point: runs the plugin under `PluginRuntime`.
    public static func main() async {
        await PluginRuntime.run(Self.self)
    }
}

/// What the plugin says about itself in its `hello` (docs/PROTOCOL.md §3).
public struct PluginManifest: Sendable {
    /// The plugin's name, for logs and `pi-relayd plugins`.
    public var name: String
    /// The plugin's own version, free text.
    public var version: String
    /// `messenger`, `formatter`, `attachments`, or a name of your own.
    public var roles: [String]
    /// Numbers the supervisor respects, e.g. `maxMessageLength`, `maxUploadBytes`.
    public var limits: [String: Int]
    /// One line on what the plugin does, sent as the hello's `description`.
    public var summary: String
    /// A messenger's markup, sent as the hello's `dialect` (markdown when nil).
    public var dialect: Dialect?
    /// The commands a messenger registers in its own menu, sent as the hello's `commands`.
    public var commands: [MessengerCommand]
    /// The config section's keys, sent as the hello's `config`: pi-relayd checks the section
    /// against them and the plugin gets it as checked.
    public var config: ConfigSchema?
    /// A messenger's text for `pi-relayd setup` and `doctor`, sent as the hello's `setup`.
    public var setup: MessengerSetup?

    /// A manifest; everything after `summary` may be left out.
    public init(
        name: String, version: String, roles: [String], limits: [String: Int] = [:], summary: String, dialect: Dialect? = nil,
        commands: [MessengerCommand] = [], config: ConfigSchema? = nil, setup: MessengerSetup? = nil
    ) {
        self.name = name
        self.version = version
        self.roles = roles
        self.limits = limits
        self.summary = summary
        self.dialect = dialect
        self.commands = commands
        self.config = config
        self.setup = setup
    }
}

/// A request or an acknowledged delivery from the supervisor.
public struct PluginRequest: Sendable {
    /// The request id, or the delivery's message id (the same after a restart).
    public let id: String
    /// The method, e.g. `chat.post`.
    public let method: String
    /// The method's parameters, an object.
    public let params: JSONValue
    /// True for an acknowledged delivery (answered with `ack`, not a response).
    public let isDelivery: Bool
    /// When the supervisor stops waiting, if it said so.
    public let deadline: ContinuousClock.Instant?

    /// The method: one of the protocol's, or `other` for a method of your own.
    public var name: MethodName { MethodName(rawValue: method) }

    /// The params read as `type`; a mismatch is `invalid_params`, answered to the supervisor.
    public func params<Params: WirePayload>(_ type: Params.Type) throws(RemoteError) -> Params {
        try Params(json: params)
    }
}

/// Ways a plugin ends on purpose, mapped to exit statuses the supervisor understands.
public enum PluginExit: Error, Sendable {
    /// Exit 78 (EX_CONFIG): the supervisor will not restart the plugin and shows the reason.
    case notConfigured(String)
    /// Exit with any status after logging the reason.
    case status(Int32, String)

    /// What the stderr line that says why a plugin exits 78 holds before the reason: the
    /// supervisor shows that line, not whatever another task logged after it.
    public static let notConfiguredMark = "not configured: "
}
