import Foundation
import Testing

@testable import PiRelaySDK

/// docs/PROTOCOL.md cannot drift from the SDK: every ```json example in it names its type in a
/// `<!-- wire: Type -->` line, and reads back through that type to the same JSON.
@Suite struct ProtocolDocumentTests {
    struct Example {
        let line: Int
        let type: String?
        let json: String
    }

    /// Every payload type an example may name, as decode-then-encode.
    static let types: [String: @Sendable (JSONValue) throws -> JSONValue] = [
        "Hello": { try Hello(json: $0).json },
        "Welcome": { try Welcome(json: $0).json },
        "RunView": { try RunView(json: $0).json },
        "FormatRunParams": { try FormatRunParams(json: $0).json },
        "FormatLiveResult": { try FormatLiveResult(json: $0).json },
        "FormatFinalResult": { try FormatFinalResult(json: $0).json },
        "Chat": { try Chat(json: $0).json },
        "ChatMessageParams": { try ChatMessageParams(json: $0).json },
        "ChatMessageResult": { try ChatMessageResult(json: $0).json },
        "Reply": { try Reply(json: $0).json },
        "ChatPostParams": { try ChatPostParams(json: $0).json },
        "ChatLiveParams": { try ChatLiveParams(json: $0).json },
        "ChatReactParams": { try ChatReactParams(json: $0).json },
        "ChatThreadParams": { try ChatThreadParams(json: $0).json },
        "Target": { try Target(json: $0).json },
        "AttachmentsInboundParams": { try AttachmentsInboundParams(json: $0).json },
        "AttachmentsInboundResult": { try AttachmentsInboundResult(json: $0).json },
        "SessionSummary": { try SessionSummary(json: $0).json },
        "BindingSummary": { try BindingSummary(json: $0).json },
        "ChatPairParams": { try ChatPairParams(json: $0).json },
        "AllowlistParams": { try AllowlistParams(json: $0).json },
        "MessengerIdentityParams": { try MessengerIdentityParams(json: $0).json },
        "MessengerIdentity": { try MessengerIdentity(json: $0).json },
        "PromptOutcome": { try PromptOutcome(json: $0).json },
        "ControlRequest": { try ControlRequest(json: $0).json },
        "FormatNoticeParams": { try FormatNoticeParams(json: $0).json },
        "FormattedText": { try FormattedText(json: $0).json },
        "ChatCommandParams": { try ChatCommandParams(json: $0).json },
        "ChatAnswerParams": { try ChatAnswerParams(json: $0).json },
        "ChatBindParams": { try ChatBindParams(json: $0).json },
        "ChatTypingParams": { try ChatTypingParams(json: $0).json },
        "QuestionClosedParams": { try QuestionClosedParams(json: $0).json },
        "PresenceParams": { try PresenceParams(json: $0).json },
        "FederationReport": { try FederationReport(json: $0).json },
        "ForwardedRequest": { try ForwardedRequest(json: $0).json },
        "ForwardedDelivery": { try ForwardedDelivery(json: $0).json },
        "IngressChange": { try IngressChange(json: $0).json },
        "IngressCursor": { try IngressCursor(json: $0).json },
        "CursorAnswer": { try CursorAnswer(json: $0).json },
        "MessageClaim": { try MessageClaim(json: $0).json },
        "ChatPicks": { try ChatPicks(json: $0).json },
        "AttachmentsOutboundParams": { try AttachmentsOutboundParams(json: $0).json },
        "AttachmentsOutboundResult": { try AttachmentsOutboundResult(json: $0).json },
    ]

    /// The payload types of each method (params, then result), as PluginMethod.swift types them;
    /// `status` and `relay.status` take nothing and answer an object of their own.
    static let methodTypes: [MethodName: [String]] = [
        .status: [], .relayStatus: [],
        .formatLive: ["FormatRunParams", "FormatLiveResult"], .formatFinal: ["FormatRunParams", "FormatFinalResult"],
        .formatNotice: ["FormatNoticeParams", "FormattedText"], .formatRedact: ["FormattedText"],
        .chatMessage: ["ChatMessageParams", "ChatMessageResult"], .chatCommand: ["ChatCommandParams", "Reply"],
        .chatAnswer: ["ChatAnswerParams", "Reply"], .chatBind: ["ChatBindParams", "Reply"], .chatPair: ["ChatPairParams", "Reply"],
        .chatPost: ["ChatPostParams"], .chatLive: ["ChatLiveParams"], .chatTyping: ["ChatTypingParams"], .chatReact: ["ChatReactParams"],
        .chatQuestionClosed: ["QuestionClosedParams"], .chatThread: ["ChatThreadParams", "Target"], .chatPresence: ["PresenceParams"],
        .chatAllowlist: ["AllowlistParams"], .messengerIdentity: ["MessengerIdentityParams", "MessengerIdentity"],
        .attachmentsInbound: ["AttachmentsInboundParams", "AttachmentsInboundResult"],
        .attachmentsOutbound: ["AttachmentsOutboundParams", "AttachmentsOutboundResult"],
        .federationMachines: ["FederationReport"], .federationForward: ["ForwardedRequest"], .federationReceived: ["ForwardedRequest"],
        .federationDeliver: ["ForwardedDelivery"], .federationIngress: ["IngressChange"], .messengerIngress: ["IngressChange"],
        .federationCursor: ["IngressCursor", "CursorAnswer"], .messengerCursor: ["IngressCursor", "CursorAnswer"],
        .federationClaim: ["MessageClaim"], .federationPick: ["ChatPicks"], .federationPicks: ["ChatPicks"],
    ]

    static func examples() throws -> [Example] {
        let path = String(#filePath.prefix(upTo: #filePath.range(of: "/Tests/")!.lowerBound)) + "/docs/PROTOCOL.md"
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var examples: [Example] = []
        var index = 0
        while index < lines.count {
            guard lines[index] == "```json" else {
                index += 1
                continue
            }
            var previous = index - 1
            while previous >= 0 && lines[previous].trimmingCharacters(in: .whitespaces).isEmpty { previous -= 1 }
            let marker = previous >= 0 ? lines[previous] : ""
            let type =
                marker.hasPrefix("<!-- wire: ") && marker.hasSuffix(" -->")
                ? String(marker.dropFirst("<!-- wire: ".count).dropLast(" -->".count)) : nil
            var end = index + 1
            while end < lines.count && lines[end] != "```" { end += 1 }
            // `<!-- wire: Type lines -->`: each line of the block is an example of its own.
            if let type, type.hasSuffix(" lines") {
                for number in (index + 1)..<end {
                    examples.append(Example(line: number + 1, type: String(type.dropLast(" lines".count)), json: lines[number]))
                }
            } else {
                examples.append(Example(line: index + 1, type: type, json: lines[(index + 1)..<end].joined(separator: "\n")))
            }
            index = end + 1
        }
        return examples
    }

    @Test func everyExampleNamesAKnownType() throws {
        let examples = try Self.examples()
        #expect(examples.count >= 16)
        for example in examples {
            #expect(example.type.map { Self.types[$0] != nil } == true, "PROTOCOL.md line \(example.line): no known <!-- wire: Type --> above it")
        }
    }

    @Test func everyExampleRoundTripsThroughItsType() throws {
        for example in try Self.examples() {
            guard let type = example.type, let roundTrip = Self.types[type] else { continue }
            let json = try JSONValue.parse(bytes: Array(example.json.utf8))
            #expect(try roundTrip(json) == json, "PROTOCOL.md line \(example.line): \(type) does not read back to the same JSON")
        }
    }

    @Test func messagesInTheDocumentDecodeAsWireMessages() throws {
        for example in try Self.examples() where example.type == "Hello" || example.type == "Welcome" {
            let message = try WireMessage.decode(Array(example.json.utf8))
            #expect(try WireMessage.decode(message.json) == message)
        }
    }

    @Test func everyDocumentedMethodHasAName() throws {
        let document = try String(
            contentsOfFile: String(#filePath.prefix(upTo: #filePath.range(of: "/Tests/")!.lowerBound)) + "/docs/PROTOCOL.md", encoding: .utf8)
        for method in MethodName.allCases {
            #expect(document.contains("`\(method.rawValue)`"), "\(method.rawValue) is not in PROTOCOL.md")
        }
    }

    @Test func errorCodesKeepTheirWireSpelling() {
        for code in ["method_not_found", "invalid_params", "not_found", "not_authorized", "timeout", "unavailable", "poison", "internal", "pi_error"]
        {
            let parsed = ErrorCode(rawValue: code)
            #expect(parsed.rawValue == code)
            if case .other = parsed { Issue.record("\(code) is a documented code") }
        }
        #expect(ErrorCode(rawValue: "teapot") == .other("teapot"))
    }
}

extension ProtocolDocumentTests {
    /// The control socket's section names every method the CLI and the daemon share, and no
    /// method goes by two names.
    @Test func everyControlMethodIsDocumented() throws {
        let document = try String(
            contentsOfFile: String(#filePath.prefix(upTo: #filePath.range(of: "/Tests/")!.lowerBound)) + "/docs/PROTOCOL.md", encoding: .utf8)
        let section = try #require(document.range(of: "## 9. Control socket")).upperBound
        let end = try #require(document.range(of: "## 10.", range: section..<document.endIndex)).lowerBound
        let text = document[section..<end]
        for method in ControlMethod.allCases {
            #expect(text.contains("`\(method.rawValue)`"), "\(method.rawValue) is not in PROTOCOL.md §9")
        }
        #expect(Set(ControlMethod.allCases.map(\.rawValue)).count == ControlMethod.allCases.count)
        #expect(ControlMethod.piCommands.isSubset(of: ControlMethod.sessionMethods))
    }

    /// Every control method has a request example in PROTOCOL.md §9, in the order a live daemon
    /// can take them (`ControlExampleTests` sends each).
    @Test func everyControlMethodHasAnExample() throws {
        let requests = try Self.controlExamples()
        #expect(Set(requests.map(\.method)) == Set(ControlMethod.allCases))
        #expect(requests.last?.method == .stop, "stop comes last")
        #expect(Set(requests.map(\.method)).count == requests.count, "one example per method")
    }

    /// The control requests in PROTOCOL.md, in document order.
    static func controlExamples() throws -> [ControlRequest] {
        try examples().filter { $0.type == "ControlRequest" }.map { try ControlRequest(json: JSONValue.parse(bytes: Array($0.json.utf8))) }
    }

    @Test func aControlRequestRefusesWhatIsNoMethod() {
        #expect(throws: RemoteError.methodNotFound("teapot")) { try ControlRequest(json: ["id": "1", "method": "teapot"]) }
        #expect(throws: RemoteError.self) { try ControlRequest(json: ["id": "1"]) }
        #expect(throws: RemoteError.self) { try ControlRequest(json: ["id": "1", "method": "ping", "params": [1]]) }
        #expect((try? ControlRequest(json: ["method": "ping"]))?.params == [:], "params default to {}")
    }

    /// Each prompt control method is one `PromptKind`, and back.
    @Test func thePromptMethodsAreThePromptKinds() {
        #expect(PromptKind.allCases.map(\.method) == [.send, .steer, .followUp])
        for kind in PromptKind.allCases { #expect(PromptKind(kind.method) == kind) }
        #expect(PromptKind(.abort) == nil)
        #expect(throws: RemoteError.self) { try PromptOutcome(json: ["status": "sent", "session": "s1"]) }
    }

    /// Every method of the protocol has an example of each of its payloads in PROTOCOL.md, read
    /// back through its type.
    @Test func everyMethodsPayloadsHaveAnExample() throws {
        let documented = Set(try Self.examples().compactMap(\.type))
        #expect(Set(Self.methodTypes.keys) == Set(MethodName.allCases))
        for (method, types) in Self.methodTypes {
            for type in types {
                #expect(documented.contains(type), "\(method.rawValue): no example of \(type)")
                #expect(Self.types[type] != nil, "\(type) is not read back")
            }
        }
    }
}
