import FoundationEssentials
import PiRelaySDK
import SupervisorIO

extension SessionControl {
    /// `stream`: the session's events until the client goes away or the session ends.
    /// `stream`: the session's events until the client leaves or the session ends. With
    /// `runs: true` the stream also carries the run itself as the chats get it, a `run` event
    /// holding its run view: the run in progress at most every `runViewInterval` while it
    /// changes, and each run once more when it has finished (`done`), for a client that renders
    /// it (`send --wait`, `stream --pretty`). A view in progress may arrive after its run's
    /// finished one; a client drops it.
    package func watch(_ session: PiSession, on stream: ControlStream, runs: Bool = false) async {
        let (key, events) = await session.watch()
        let name = await session.name
        stream.send(["type": "watching", "session": .string(name)])
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in events {
                    if stream.isClosed { break }
                    stream.send(event)
                    if runs, event["type"]?.stringValue == "run_finished", let runID = event["runId"]?.stringValue,
                        let finished = await session.lastRun, finished.runID == runID
                    {
                        stream.send(["type": "run", "session": .string(name), "run": finished.view.json])
                    }
                }
            }
            group.addTask { await stream.waitUntilClosed() }
            if runs {
                group.addTask {
                    var seen: RunRevision?
                    while !Task.isCancelled, !stream.isClosed {
                        if let (view, revision) = await session.runInProgress(changedSince: seen) {
                            seen = revision
                            stream.send(["type": "run", "session": .string(name), "run": view.json])
                        }
                        try? await Task.sleep(for: Self.runViewInterval)
                    }
                }
            }
            await group.next()
            // The client left, or the session ended and so did its events. In the second
            // case the other task waits for the client (it ignores cancellation): close.
            stream.close()
            group.cancelAll()
        }
        await session.unwatch(key)
    }

    /// How often a `stream` with `runs` looks for a change in the run in progress.
    package static let runViewInterval = Duration.milliseconds(150)

    package func history(_ session: PiSession, _ params: JSONValue) async throws -> JSONValue {
        let types = params["types"]?.arrayValue.map { Set($0.compactMap(\.stringValue)) }
        var since: Date?
        if let text = params["since"]?.stringValue {
            // An unreadable time must not quietly mean "everything".
            guard let date = Self.parseSince(text) else {
                throw RemoteError.invalidParams("--since takes an ISO time or a duration ago such as 30s, 5m or 2h, not \(text)")
            }
            since = date
        }
        let limit = params["limit"]?.intValue ?? 200
        let raw = params["raw"]?.boolValue ?? false
        var entries = await session.historyEntries(types: types?.isEmpty == true ? nil : types, since: since, limit: limit, raw: raw)
        if let maxBytes = params["maxBytes"]?.intValue {
            guard maxBytes > 0 else { throw RemoteError.invalidParams("--max-bytes takes a number of bytes above 0") }
            entries = Self.newest(entries, within: maxBytes)
        }
        return .array(entries)
    }

    /// The newest of `entries` (oldest first) whose JSON fits in `maxBytes`; the newest one
    /// always, whatever its size.
    static func newest(_ entries: [JSONValue], within maxBytes: Int) -> [JSONValue] {
        var total = 2
        var first = entries.count
        while first > 0 {
            let size = entries[first - 1].serializedBytes().count + 1
            if first < entries.count, total + size > maxBytes { break }
            total += size
            first -= 1
        }
        return Array(entries[first...])
    }
}
