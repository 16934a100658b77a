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
        // A file that may not grow (the owner's `ulimit -f`) must cost a refused write, which
        // `status` reports, not the plugin: SIGXFSZ's default action would kill it.
        signal(SIGXFSZ, SIG_IGN)
        // Direct writes once protocolFD is the only way left to its pipe (fd 1 is stderr now).
        let writer = FDWriter(fd: protocolFD, direct: direct)
        // The process ends as soon as the end is known: a plugin's own tasks need not wind down.
        let status = await serve(type, input: 0, closingAtEnd: false, writer: writer, logger: logger) { finish(writer, status: $0) }
        finish(writer, status: status)
    }

    /// Serves `type` over a pipe pair inside this process, for a supervisor that links the plugin
    /// in (tests of the chat layer without a process per plugin): reads the protocol from
    /// `input` and writes it to `output`, and closes both when done. Returns the exit status the
    /// plugin would have exited with.
    public static func serve<P: Plugin>(_ type: P.Type, input: Int32, output: Int32, logger: Logger) async -> Int32 {
        let writer = FDWriter(fd: output)
        let status = await serve(type, input: input, closingAtEnd: true, writer: writer, logger: logger) { _ in }
        writer.finish()
        await writer.drained(timeout: 2)
        close(output)
        return status
    }

    /// The protocol itself, on a descriptor to read and a writer: the hello, the welcome, then
    /// messages until shutdown, goodbye, end of input or a fatal error. `ended` hears the exit
    /// status as soon as it is known; the plugin's tasks are then cancelled, and the status is
    /// returned once they are done.
    static func serve<P: Plugin>(
        _ type: P.Type, input fd: Int32, closingAtEnd: Bool, writer: FDWriter, logger: Logger, ended: @escaping @Sendable (Int32) -> Void
    ) async -> Int32 {
        let manifest = P.manifest
        let connection = PluginConnection(writer: writer)
        let hello = Hello(
            name: manifest.name, version: manifest.version, roles: manifest.roles,
            limits: manifest.limits, description: manifest.summary, dialect: manifest.dialect, commands: manifest.commands,
            config: manifest.config, setup: manifest.setup)
        writer.send(WireMessage.hello(hello).encodedLine())

        let contact = SupervisorContact()
        let inbound = PluginInbound<P>(writer: writer, contact: contact, logger: logger)
        P.readInput(fd: fd, closingAtEnd: closingAtEnd, read: { inbound.feed($0) }, end: { inbound.inputEnded() })
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await (id, result) in inbound.responses { await connection.resolve(id, result) }
            }
            var heard = inbound.inputs.makeAsyncIterator()
            let welcome: Welcome
            do {
                welcome = try await awaitWelcome(&heard, inbound: inbound)
            } catch {
                logger.error("\(error)")
                ended(76)
                group.cancelAll()
                return 76
            }

            try? FileManager.default.createDirectory(atPath: welcome.stateDir, withIntermediateDirectories: true)
            contact.heard()
            let context = PluginContext(
                config: welcome.config, stateDir: welcome.stateDir, spoolDir: welcome.spoolDir,
                welcome: welcome, connection: connection, logger: logger, contact: contact)
            let plugin: P
            do {
                plugin = try await P(context: context)
            } catch {
                let status = exitStatus(for: error, logger: logger)
                ended(status)
                group.cancelAll()
                return status
            }
            let ledger = DeliveryLedger(path: welcome.stateDir + "/.delivered")
            let parked = ParkedDeliveries()
            group.addTask { await parked.run(every: DeliveryRetry.pace.parkedEvery) { inbound.requeue($0) } }
            // Deliveries and notifications keep their order within their lane, lanes side by
            // side; requests run concurrently.
            group.addTask {
                // Discarding: a lane let go when idle ends its task, and nothing keeps it.
                await withDiscardingTaskGroup { lanes in
                    for await lane in inbound.newLanes {
                        lanes.addTask {
                            for await message in lane.messages {
                                await Self.handleInOrder(
                                    message, in: lane.name, plugin: plugin, ledger: ledger, parked: parked, writer: writer, logger: logger)
                                inbound.finished(lane.name)
                            }
                        }
                    }
                }
            }
            inbound.ready(plugin)
            // Started only to be asked something (`pi-relayd setup`): no connection to the service.
            if !welcome.checkOnly {
                group.addTask {
                    do { try await plugin.run() } catch { inbound.end(exitStatus(for: error, logger: logger)) }
                }
            }
            var status: Int32 = 0
            // A goodbye ends at once, as a refused handshake does: no winding down.
            var windDown = true
            reading: while let next = await heard.next() {
                let message: WireMessage
                switch next {
                case .end(let code):
                    status = code
                    break reading
                case .message(let read):
                    message = read
                }
                if inbound.take(message) { continue }
                defer { inbound.caughtUp() }
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
                case .response:
                    // Taken by the reader (`PluginInbound.responses`), never sent here.
                    break
                case .shutdown:
                    break reading
                case .goodbye(let reason):
                    logger.error("pi-relayd said goodbye: \(reason)")
                    windDown = false
                    break reading
                default:
                    break
                }
            }
            inbound.closeLanes()
            if status == 0 && windDown {
                await plugin.shutdown()
                await connection.close()
            }
            ended(status)
            group.cancelAll()
            return status
        }
    }

    /// A delivery (acked once it had its effect, deduped by id) or a notification, in its lane's
    /// order.
    /// `lane`: the lane it runs in, which is the default one when the plugin had too many busy.
    private static func handleInOrder<P: Plugin>(
        _ message: WireMessage, in lane: String, plugin: P, ledger: DeliveryLedger, parked: ParkedDeliveries, writer: FDWriter,
        logger: Logger
    ) async {
        switch message {
        case .deliver(let id, let method, let params):
            if await ledger.contains(id) {
                writer.send(WireMessage.ack(id: id).encodedLine())
                return
            }
            var failures = 0
            let returning = parked.isReturning(id)
            while true {
                do {
                    _ = try await plugin.handle(PluginRequest(id: id, method: method, params: params, isDelivery: true, deadline: nil))
                    await ledger.record(id)
                    writer.send(WireMessage.ack(id: id).encodedLine())
                    return
                } catch let error as RemoteError where error.code == .methodNotFound {
                    // A delivery this plugin does not understand is acknowledged and ignored;
                    // otherwise it would be replayed forever.
                    await ledger.record(id)
                    writer.send(WireMessage.ack(id: id).encodedLine())
                    return
                } catch {
                    failures += 1
                    guard DeliveryRetry.mayPass(error) else {
                        // Not acked: pi-relayd keeps it and hands it to the next instance.
                        logger.error("delivery \(id) (\(method)) failed, left for the next start: \(error)")
                        return
                    }
                    guard !returning, !lane.isEmpty, let delay = DeliveryRetry.delay(afterFailures: failures) else {
                        // Not acked either; tried again later, behind what its lane holds then.
                        parked.park(id, message)
                        if !returning {
                            logger.error(
                                "delivery \(id) (\(method)) failed \(failures) times; trying it again every \(DeliveryRetry.pace.parkedEvery): \(error)"
                            )
                        }
                        return
                    }
                    logger.warning("delivery \(id) (\(method)) failed, trying again in \(delay): \(error)")
                    do { try await Task.sleep(for: delay) } catch { return }
                }
            }
        case .notify(let method, let params):
            await plugin.handle(notification: method, params: params)
        default: break
        }
    }

    /// The welcome, the first message pi-relayd sends.
    private static func awaitWelcome<P: Plugin>(
        _ heard: inout AsyncStream<PluginInbound<P>.Input>.Iterator, inbound: PluginInbound<P>
    ) async throws -> Welcome {
        guard case .message(let message) = await heard.next() else {
            throw WireDecodeError(description: "stdin closed before the welcome")
        }
        inbound.caughtUp()
        switch message {
        case .welcome(let welcome): return welcome
        case .goodbye(let reason): throw WireDecodeError(description: "pi-relayd refused the handshake: \(reason)")
        default: throw WireDecodeError(description: "expected welcome as the first message from pi-relayd")
        }
    }

    /// The exit status for an error that ends the plugin, logged.
    static func exitStatus(for error: any Error, logger: Logger) -> Int32 {
        switch error {
        case PluginExit.notConfigured(let why):
            logger.error("\(PluginExit.notConfiguredMark)\(why)")
            return 78
        case PluginExit.status(let code, let why):
            logger.error("\(why)")
            return code
        default:
            logger.error("fatal: \(error)")
            return 1
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
