import FoundationEssentials
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// Runs a `Plugin` type: checks it was started by pi-relayd, moves the protocol off fd 1, does the
/// handshake and then serves messages until shutdown or end of input.
public enum PluginRuntime {
    /// Set to `1` by the supervisor; without it the plugin explains itself and exits 64.
    public static let pluginEnvironmentKey = "PI_RELAY_PLUGIN"

    /// Serves `type` until shutdown or end of input, then exits the process (`Plugin.main()` calls this).
    public static func run<P: Plugin>(_ type: P.Type) async {
        let manifest = P.manifest
        let env = ProcessInfo.processInfo.environment
        guard env[pluginEnvironmentKey] == "1" else {
            let text = """
                \(manifest.name) \(manifest.version): \(manifest.summary)
                This is a pi-relayd plugin (roles: \(manifest.roles.joined(separator: ", "))). It speaks \
                pi-relayd plugin protocol v\(WireMessage.protocolVersion) on stdin/stdout and is started by \
                pi-relayd, which finds it in its plugins folder. See docs/PROTOCOL.md.
                To check it: pi-relayd plugin check \(CommandLine.arguments.first ?? manifest.name)

                """
            StandardStreams.writeError(text)
            exit(64)
        }
        LoggingSystem.bootstrap { StderrLogHandler(label: $0) }
        let logger = Logger(label: manifest.name)

        // The protocol moves to a private fd and fd 1 becomes stderr, so a stray print() in plugin
        // code lands in the log instead of corrupting the stream.
        let direct = stdoutIsItsOwnPipe()
        let protocolFD = dup(1)
        dup2(2, 1)
        signal(SIGPIPE, SIG_IGN)
        // Direct writes once protocolFD is the only way left to its pipe (fd 1 is stderr now).
        let writer = FDWriter(fd: protocolFD, direct: direct)
        let connection = PluginConnection(writer: writer)
        let hello = Hello(
            name: manifest.name, version: manifest.version, roles: manifest.roles,
            limits: manifest.limits, description: manifest.summary, dialect: manifest.dialect, commands: manifest.commands,
            config: manifest.config, setup: manifest.setup)
        writer.send(WireMessage.hello(hello).encodedLine())

        let lines = FDLineReader.lines(fd: 0)
        var iterator = lines.makeAsyncIterator()
        let welcome: Welcome
        do {
            welcome = try await awaitWelcome(&iterator, logger: logger)
        } catch {
            logger.error("\(error)")
            finish(writer, status: 76)
        }

        try? FileManager.default.createDirectory(atPath: welcome.stateDir, withIntermediateDirectories: true)
        let context = PluginContext(
            config: welcome.config, stateDir: welcome.stateDir, spoolDir: welcome.spoolDir,
            welcome: welcome, connection: connection, logger: logger)
        let plugin: P
        do {
            plugin = try await P(context: context)
        } catch {
            exitFor(error, writer: writer, logger: logger)
        }
        let ledger = DeliveryLedger(path: welcome.stateDir + "/.delivered")

        // Deliveries and notifications keep their order within their lane; requests run concurrently.
        let (ordered, orderedIn) = AsyncStream<WireMessage>.makeStream()
        await withTaskGroup(of: Void.self) { group in
            // Started only to be asked something (`pi-relayd setup`): no connection to the service.
            if !welcome.checkOnly {
                group.addTask {
                    do { try await plugin.run() } catch { exitFor(error, writer: writer, logger: logger) }
                }
            }
            group.addTask {
                // One task per lane the plugin names, each in order; at most `maxLanes`, then
                // new lanes share the first (order is kept either way).
                await withTaskGroup(of: Void.self) { lanes in
                    var inboxes: [String: AsyncStream<WireMessage>.Continuation] = [:]
                    for await message in ordered {
                        var lane = ""
                        switch message {
                        case .deliver(_, let method, let params), .notify(let method, let params):
                            lane = plugin.lane(of: method, params: params)
                        default: break
                        }
                        if inboxes[lane] == nil, inboxes.count >= Self.maxLanes { lane = "" }
                        if inboxes[lane] == nil {
                            let (stream, inbox) = AsyncStream<WireMessage>.makeStream()
                            inboxes[lane] = inbox
                            lanes.addTask {
                                for await message in stream {
                                    await Self.handleInOrder(message, plugin: plugin, ledger: ledger, writer: writer, logger: logger)
                                }
                            }
                        }
                        inboxes[lane]?.yield(message)
                    }
                    for inbox in inboxes.values { inbox.finish() }
                }
            }
            while let event = await iterator.next() {
                guard case .line(let bytes) = event else {
                    logger.warning("skipped input: \(event)")
                    continue
                }
                let message: WireMessage
                do { message = try WireMessage.decode(bytes) } catch {
                    logger.warning("ignored a malformed line from pi-relayd: \(error)")
                    continue
                }
                switch message {
                case .request(let id, let method, let params, let deadlineMs):
                    let deadline = deadlineMs.map { ContinuousClock.now + .milliseconds($0) }
                    group.addTask {
                        let result: Result<JSONValue, RemoteError>
                        do {
                            result = .success(
                                try await plugin.handle(
                                    PluginRequest(
                                        id: id, method: method, params: params,
                                        isDelivery: false, deadline: deadline)))
                        } catch let error as RemoteError {
                            result = .failure(error)
                        } catch {
                            result = .failure(RemoteError(code: .internal, message: "\(error)"))
                        }
                        writer.send(WireMessage.response(id: id, result: result).encodedLine())
                    }
                case .response(let id, let result):
                    await connection.resolve(id, result)
                case .deliver, .notify:
                    orderedIn.yield(message)
                case .ping(let id):
                    writer.send(WireMessage.pong(id: id).encodedLine())
                case .shutdown:
                    orderedIn.finish()
                    await plugin.shutdown()
                    await connection.close()
                    finish(writer, status: 0)
                case .goodbye(let reason):
                    logger.error("pi-relayd said goodbye: \(reason)")
                    finish(writer, status: 0)
                default:
                    break
                }
            }
            // End of input: the supervisor is gone or closed our stdin.
            orderedIn.finish()
            await plugin.shutdown()
            await connection.close()
            finish(writer, status: 0)
        }
    }

    /// Lanes a plugin may have at once (`Plugin.lane`); more share the default lane.
    static let maxLanes = 1024

    /// A delivery (acked once it had its effect, deduped by id) or a notification, in its lane's
    /// order.
    private static func handleInOrder<P: Plugin>(
        _ message: WireMessage, plugin: P, ledger: DeliveryLedger, writer: FDWriter, logger: Logger
    ) async {
        switch message {
        case .deliver(let id, let method, let params):
            if await ledger.contains(id) {
                writer.send(WireMessage.ack(id: id).encodedLine())
                return
            }
            do {
                _ = try await plugin.handle(PluginRequest(id: id, method: method, params: params, isDelivery: true, deadline: nil))
                await ledger.record(id)
                writer.send(WireMessage.ack(id: id).encodedLine())
            } catch let error as RemoteError where error.code == .methodNotFound {
                // A delivery this plugin does not understand is acknowledged and ignored;
                // otherwise it would be replayed forever.
                await ledger.record(id)
                writer.send(WireMessage.ack(id: id).encodedLine())
            } catch {
                // Not acked: the supervisor keeps it and delivers it again later.
                logger.warning("delivery \(id) (\(method)) failed: \(error)")
            }
        case .notify(let method, let params):
            await plugin.handle(notification: method, params: params)
        default: break
        }
    }

    private static func awaitWelcome(_ it: inout AsyncStream<LineFramer.Event>.Iterator, logger: Logger) async throws -> Welcome {
        while let event = await it.next() {
            guard case .line(let bytes) = event else { continue }
            switch try WireMessage.decode(bytes) {
            case .welcome(let welcome): return welcome
            case .goodbye(let reason): throw WireDecodeError(description: "pi-relayd refused the handshake: \(reason)")
            default: throw WireDecodeError(description: "expected welcome as the first message from pi-relayd")
            }
        }
        throw WireDecodeError(description: "stdin closed before the welcome")
    }

    static func exitFor(_ error: any Error, writer: FDWriter, logger: Logger) -> Never {
        switch error {
        case PluginExit.notConfigured(let why):
            logger.error("not configured: \(why)")
            finish(writer, status: 78)
        case PluginExit.status(let code, let why):
            logger.error("\(why)")
            finish(writer, status: code)
        default:
            logger.error("fatal: \(error)")
            finish(writer, status: 1)
        }
    }

    static func finish(_ writer: FDWriter, status: Int32) -> Never {
        writer.finish()
        writer.flush(timeout: 2)
        exit(status)
    }

    /// Whether stdout is a pipe of its own (as the daemon starts plugins), not shared with
    /// stderr: making it non-blocking must not make stderr writes fail with EAGAIN.
    static func stdoutIsItsOwnPipe() -> Bool {
        var out = stat()
        var err = stat()
        guard fstat(1, &out) == 0, (out.st_mode & S_IFMT) == S_IFIFO else { return false }
        guard fstat(2, &err) == 0 else { return true }
        return !(out.st_dev == err.st_dev && out.st_ino == err.st_ino)
    }
}
