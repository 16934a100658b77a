import PiRelaySDK

/// The control socket's `schedule.*` methods (`pi-relayd schedule add|list|rm`).
package struct ScheduleControl: Sendable {
    package let schedules: Schedules
    package let sessions: Sessions

    package init(schedules: Schedules, sessions: Sessions) {
        self.schedules = schedules
        self.sessions = sessions
    }

    package func handle(_ method: ControlMethod, params: JSONValue) async throws -> JSONValue {
        switch method {
        case .scheduleAdd:
            guard let words = params["schedule"]?.stringValue, !words.isEmpty else {
                throw RemoteError.invalidParams("schedule.add needs schedule: " + ScheduleRequest.usage)
            }
            let session = try await sessions.resolve(params["session"]?.stringValue)
            do {
                let schedule = try await schedules.add(words, session: session, createdBy: "terminal")
                return await schedules.json(schedule)
            } catch let error as ScheduleError {
                throw RemoteError.invalidParams(error.description)
            }
        case .scheduleList:
            var list = await schedules.all
            if let key = params["session"]?.stringValue {
                let session = try await sessions.resolve(key)
                list = list.filter { $0.sessionID == session.id }
            }
            var items: [JSONValue] = []
            for schedule in list { items.append(await schedules.json(schedule)) }
            return .array(items)
        case .scheduleRemove:
            guard let number = params["number"]?.intValue else { throw RemoteError.invalidParams("schedule.remove needs number") }
            guard let gone = try await schedules.remove(number) else {
                throw RemoteError(code: .notFound, message: "no schedule #\(number) (pi-relayd schedule list shows them)")
            }
            return await schedules.json(gone)
        default:
            throw RemoteError.methodNotFound(method.rawValue)
        }
    }
}
