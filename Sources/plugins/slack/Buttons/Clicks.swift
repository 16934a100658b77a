import Logging
import MessengerKit
import PiRelaySDK

/// `block_actions` (a button or a select): the allowlist on the clicker (in channels anyone can
/// click), then the supervisor through the command layer: `chat.answer` for a question (its
/// closing then says who answered, and takes the controls away) or `chat.command` `action` for
/// a Reply's button; the reply shown to the clicker alone where Slack can.
struct Clicks: Sendable {
    let poster: Poster
    let questions: QuestionMessages
    let allowlist: Allowlist
    let connection: PluginConnection
    let replies: Replies
    let logger: Logger

    func handle(_ payload: JSONValue) async {
        guard let user = payload["user"]?["id"]?.stringValue, let action = payload["actions"]?.arrayValue?.first,
            let actionID = action["action_id"]?.stringValue
        else { return }
        let channel = payload["container"]?["channel_id"]?.stringValue ?? payload["channel"]?["id"]?.stringValue ?? ""
        let ts = payload["container"]?["message_ts"]?.stringValue ?? ""
        let thread = payload["message"]?["thread_ts"]?.stringValue
        let place = Place(channel: channel, thread: thread == ts ? nil : thread)
        let name = payload["user"]?["name"]?.stringValue ?? payload["user"]?["username"]?.stringValue
        let chat = Chat(
            messenger: "slack", channel: channel, thread: place.thread, user: user, userName: name, dm: channel.hasPrefix("D"), mentioned: true)
        guard allowlist.permits(user) else {
            logger.notice("refused a click from user \(user) in \(channel): not in the allowlist")
            do { try await poster.ephemeral("Not authorized.", to: user, in: place) } catch { logger.debug("refusing a click: \(error)") }
            return
        }
        let value = action["selected_option"]?["value"]?.stringValue ?? action["value"]?.stringValue ?? ""
        let press: ButtonPress
        if actionID.hasPrefix(Blocks.questionPrefix) {
            guard let question = await questions.find(channel: channel, ts: ts) else {
                do { try await poster.ephemeral("This question is closed.", to: user, in: place) } catch {
                    logger.debug("a click on a closed question: \(error)")
                }
                return
            }
            var params = ChatAnswerParams(chat: chat, sessionID: question.sessionID, questionID: question.questionID)
            guard let shown = AnswerChoice(value: value)?.answer(&params, options: question.options) else { return }
            logger.info("answer to question \(question.questionID) from \(user): \(shown)")
            // The closing (`chat.question.closed`) names who answered. The answer itself goes
            // at once: no edit of the question, which would wait for chat.update's budget, is
            // made before it.
            await questions.answered(channel: channel, ts: ts, by: user)
            press = .answer(params)
        } else {
            logger.info("button \(value) from \(user) in \(channel)")
            press = .action(id: value)
        }
        var reply: Reply
        do { reply = try await press.request(from: chat, over: connection) } catch { reply = Reply(failed: error, ephemeral: true) }
        // In a channel, what a Reply's button answers is for the clicker alone.
        if case .action = press, !chat.dm { reply.ephemeral = true }
        // The question's message is updated to say who answered what (chat.question.closed).
        if reply.questionClosed { return }
        await replies.show(reply, to: chat)
    }
}
