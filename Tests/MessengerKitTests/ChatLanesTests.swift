import MessengerKit
import PiRelaySDK
import Testing

/// Lanes by chat and urgency: a chat's questions and finals apart from its notices, chats apart
/// from each other, and what names no chat in the one shared lane.
@Suite struct ChatLanesTests {
    @Test func questionsFinalsAndClosingsShareALaneApartFromNotices() {
        let question = ChatLanes.lane(of: "chat.post", params: ["target": ["channel": "42"], "kind": "question"])
        let final = ChatLanes.lane(of: "chat.post", params: ["target": ["channel": "42"], "kind": "final"])
        let closed = ChatLanes.lane(of: "chat.question.closed", params: ["target": ["channel": "42"]])
        let notice = ChatLanes.lane(of: "chat.post", params: ["target": ["channel": "42"], "kind": "notice"])
        #expect(question == final && final == closed)
        #expect(notice != question && !notice.isEmpty)
    }

    @Test func chatsAndThreadsHaveLanesOfTheirOwn() {
        let chat = ChatLanes.lane(of: "chat.post", params: ["target": ["channel": "42"], "kind": "final"])
        let other = ChatLanes.lane(of: "chat.post", params: ["target": ["channel": "43"], "kind": "final"])
        let topic = ChatLanes.lane(of: "chat.post", params: ["target": ["channel": "42", "thread": "7"], "kind": "final"])
        let sameTopicElsewhere = ChatLanes.lane(of: "chat.post", params: ["target": ["channel": "43", "thread": "7"], "kind": "final"])
        #expect(Set([chat, other, topic, sameTopicElsewhere]).count == 4)
    }

    @Test func whatNamesNoChatIsInTheSharedLane() {
        #expect(ChatLanes.lane(of: "chat.allowlist", params: ["users": ["1"]]).isEmpty)
        #expect(ChatLanes.lane(of: "chat.live", params: ["target": ["channel": "42"], "runId": "r"]).isEmpty)
        #expect(ChatLanes.lane(of: "chat.post", params: ["kind": "final"]).isEmpty)
    }
}
