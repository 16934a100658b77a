import PiRelaySDK

extension SessionControl {
    /// Open questions of one session, or of all when none is named.
    package func questions(_ params: JSONValue) async throws -> JSONValue {
        if params["session"]?.stringValue == nil {
            var all: [JSONValue] = []
            for session in await sessions.all { all += await session.openQuestions.map(\.json) }
            return .array(all)
        }
        return .array(try await session(params).openQuestions.map(\.json))
    }

    package func answer(_ session: PiSession, _ params: JSONValue, by who: String) async throws -> JSONValue {
        guard let key = params["id"]?.stringValue, let value = params["value"]?.stringValue else {
            throw RemoteError.invalidParams("answer needs a question id and a value")
        }
        let open = await session.openQuestions
        let id = try await questionID(session, key)
        // An approval is not taken by number, however the choice is written ("1", "approve
        // once"): the numbers move as gates come and go, so the gate listed as 1 (`rm -rf
        // build`) could time out and `approve S 1` pass the next, `rm -rf ~`. A number is read
        // as one before as an id's start (`questionID`), whatever the id begins with.
        let byNumber = Int(key).map { number in number >= 1 && number <= open.count && !open.contains { $0.id == key } } ?? false
        if byNumber, let asked = open.first(where: { $0.id == id }), asked.options == ApprovalChoice.labels,
            (try? asked.answer(for: value)) != .value(ApprovalChoice.deny.rawValue)
        {
            throw RemoteError.invalidParams(
                "a gate is approved by its id, or a unique start of it, as `pi-relayd questions` shows it, not by its number: "
                    + "the numbers move as gates come and go, and \(key) could name another call by now")
        }
        let question = try await session.answer(id, value: value, by: who)
        return ["answered": .string(question.id)]
    }

    package func cancel(_ session: PiSession, _ params: JSONValue, by who: String) async throws -> JSONValue {
        guard let key = params["id"]?.stringValue else { throw RemoteError.invalidParams("cancel needs a question id") }
        let question = try await session.cancel(try await questionID(session, key), by: who)
        return ["cancelled": .string(question.id)]
    }
}
