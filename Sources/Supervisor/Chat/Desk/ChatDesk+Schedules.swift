import PiRelaySDK

/// `/schedule`: this chat's session's scheduled prompts.
extension ChatDesk {
    func runSchedule(_ words: String, chat: Chat, session: PiSession?) async throws -> Reply {
        let parts = words.split(separator: " ", maxSplits: 1).map(String.init)
        switch parts.first?.lowercased() {
        case nil, "list":
            // Here: the schedules of this chat's session; with none bound, every one.
            let list = await schedules.all.filter { session == nil || $0.sessionID == session?.id }
            guard !list.isEmpty else {
                let whose = session == nil ? "" : " for \(await session!.name)"
                return Reply("No schedules\(whose). " + ScheduleRequest.usage, ephemeral: true)
            }
            var lines = ["Schedules:"]
            for schedule in list { lines.append(await schedules.line(schedule)) }
            lines.append("/schedule cancel N removes one.")
            return Reply(lines.joined(separator: "\n"), ephemeral: true)
        case "cancel", "rm", "remove", "delete":
            let number = parts.count > 1 ? Int(parts[1].trimmingInlineSpace().drop { $0 == "#" }) : nil
            guard let number else { throw RemoteError.invalidParams("which one? /schedule cancel N (/schedule list shows the numbers)") }
            guard let gone = try await schedules.remove(number) else {
                throw RemoteError(code: .notFound, message: "No schedule #\(number). /schedule list shows them.")
            }
            return Reply("Schedule #\(gone.number) (\(gone.label)) removed.")
        default:
            guard let session else { throw RemoteError(code: .notFound, message: "No session here. /sessions to pick one, then /schedule.") }
            do {
                let schedule = try await schedules.add(words, session: session, createdBy: chat.key, user: chat.user)
                return Reply("Scheduled " + (await schedules.line(schedule)))
            } catch let error as ScheduleError {
                throw RemoteError.invalidParams(error.description)
            }
        }
    }
}
