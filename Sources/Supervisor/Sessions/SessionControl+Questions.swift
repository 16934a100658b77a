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
        let approves = value == ApprovalChoice.once.rawValue || value == ApprovalChoice.session.rawValue
        let question = try await session.answer(try await questionID(session, key, byNumber: !approves), value: value, by: who)
        return ["answered": .string(question.id)]
    }

    package func cancel(_ session: PiSession, _ params: JSONValue, by who: String) async throws -> JSONValue {
        guard let key = params["id"]?.stringValue else { throw RemoteError.invalidParams("cancel needs a question id") }
        let question = try await session.cancel(try await questionID(session, key), by: who)
        return ["cancelled": .string(question.id)]
    }
}
