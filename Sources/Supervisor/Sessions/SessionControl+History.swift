import FoundationEssentials
import PiRelaySDK

extension SessionControl {
    /// `stream`: the session's events until the client goes away or the session ends.
    func watch(_ session: PiSession, on stream: ControlStream) async {
        let (key, events) = await session.watch()
        stream.send(["type": "watching", "session": .string(await session.name)])
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in events {
                    if stream.isClosed { break }
                    stream.send(event)
                }
            }
            group.addTask { await stream.waitUntilClosed() }
            await group.next()
            // The client left, or the session ended and so did its events. In the second
            // case the other task waits for the client (it ignores cancellation): close.
            stream.close()
            group.cancelAll()
        }
        await session.unwatch(key)
    }

    func history(_ session: PiSession, _ params: JSONValue) async throws -> JSONValue {
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
        return .array(await session.historyEntries(types: types?.isEmpty == true ? nil : types, since: since, limit: limit))
    }
}
