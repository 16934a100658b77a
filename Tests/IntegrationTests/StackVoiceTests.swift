import Foundation
import PiRelaySDK
import Testing

/// Voice notes through the real daemon, attachments and telegram plugins against the fake Bot API:
/// a voice note (Message.voice) is downloaded, converted to 16 kHz mono WAV by opusdec, transcribed,
/// echoed as "📝 …" and sent as the prompt; without a transcriber the chat is told how to set one up.
@Suite(.serialized) struct StackVoiceTests {
    static let transcriber = RepoPaths.root + "/Tests/Fakes/transcriber"

    func voice(_ stack: TelegramStack, saying sentence: String, seconds: Int = 2) async throws -> JSONValue {
        let ogg = try await VoiceSample.ogg(sentence, in: stack.home.scratch)
        return ["voice": ["content_b64": .string(Data(ogg).base64EncodedString()), "duration": JSONValue(seconds)]]
    }

    func startSession(_ stack: TelegramStack) async throws {
        try await stack.dm("/new \(stack.workspace) voice")
        try await stack.waitForBotMessage(in: TelegramStack.alice.id, containing: "Started voice")
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func withoutATranscriberTheChatIsToldHowToSetOneUp() async throws {
        try await TelegramStack.with { stack in
            try await stack.start()
            try await startSession(stack)
            try await stack.dm("", extra: try await voice(stack, saying: "run the tests"))
            let told = try await stack.waitForBotMessage(in: TelegramStack.alice.id, containing: "The voice note was not transcribed")
            let text = told.last?["text"]?.stringValue ?? ""
            #expect(text.contains("attachments.transcribe.command") && text.contains("attachments.transcribe.endpoint"), "\(told)")
            try await Task.sleep(for: .seconds(2))
            #expect(stack.piPrompts(containing: "").isEmpty, "nothing was sent to pi")
        }
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func aCommandTranscribesAndTheWordsArePromptedAndShown() async throws {
        try await TelegramStack.with { stack in
            let log = stack.home.scratch + "/transcribe.jsonl"
            try await stack.start(
                extra: """
                    attachments:
                      transcribe:
                        command: ["\(Self.transcriber)/fake-transcribe", "{wav}", "{lang}", "{file}"]
                        language: de
                        maxSeconds: 30

                    """, environment: ["FAKE_TRANSCRIBE_LOG": log])
            try await startSession(stack)
            try await stack.dm("", extra: try await voice(stack, saying: "fix the login bug"))
            let prompt = try await waitFor("the voice note's prompt") { stack.piPrompts(containing: "fix the login bug").first }
            #expect(prompt["message"] == "fix the login bug", "the words alone: \(prompt)")
            try await stack.waitForBotMessage(in: TelegramStack.alice.id, containing: "📝 fix the login bug")
            let run = try #require(E2EChatHome.jsonLines(log).first)
            #expect(run["rate"] == 16000 && run["channels"] == 1 && run["width"] == 2, "\(run)")
            let argv = run["argv"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(argv.count == 3 && argv[1] == "de" && argv[2].hasSuffix("/voice.ogg"), "\(argv)")
            // The folder the note was worked on in is gone.
            #expect(!FileManager.default.fileExists(atPath: (argv.first ?? "/").components(separatedBy: "/voice-16k.wav")[0]))

            // Longer than maxSeconds (as Telegram gives the duration): not transcribed, and said why.
            try await stack.dm("", extra: try await voice(stack, saying: "check the docs", seconds: 45))
            try await stack.waitForBotMessage(in: TelegramStack.alice.id, containing: "it is 45 s long; voice notes up to 30 s")
            #expect(E2EChatHome.jsonLines(log).count == 1)
        }
    }

    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func anEndpointGetsTheMultipartFieldsAndTheKeyFromDotEnv() async throws {
        try await TelegramStack.with { stack in
            let service = try await Self.transcriptionService(stack, key: "sk-test-voice-0123456789")
            defer { Task { await service.stop() } }
            try await service.post("/answer", ["text": "check the build"])
            try "TRANSCRIBE_API_KEY=sk-test-voice-0123456789\n".write(toFile: stack.home.path + "/.env", atomically: true, encoding: .utf8)
            chmod(stack.home.path + "/.env", 0o600)
            try await stack.start(
                extra: """
                    attachments:
                      transcribe:
                        endpoint: \(StackConfig.quoted(service.apiBase))
                        model: whisper-1
                        language: en

                    """)
            try await startSession(stack)
            try await stack.dm("", extra: try await voice(stack, saying: "check the build"))
            let prompt = try await waitFor("the voice note's prompt") { stack.piPrompts(containing: "check the build").first }
            #expect(prompt["message"] == "check the build", "\(prompt)")
            let requests = try await service.get("/requests")["requests"]?.arrayValue ?? []
            let request = try #require(requests.first)
            #expect(request["authorized"] == true, "\(request)")
            #expect(request["fields"]?["model"] == "whisper-1" && request["fields"]?["response_format"] == "json", "\(request)")
            #expect(request["fields"]?["language"] == "en", "\(request)")
            #expect(request["file"]?["filename"] == "voice.wav" && request["file"]?["head"] == "RIFF", "converted first: \(request)")
            for log in ["pi-relayd", "attachments", "telegram"] {
                #expect(!stack.home.read("logs/\(log).log").contains("sk-test-voice"), "the key is in logs/\(log).log")
            }
        }
    }

    /// The fake OpenAI-compatible transcription service, taking `key`.
    static func transcriptionService(_ stack: TelegramStack, key: String) async throws -> StackFake {
        try await StackFake(
            name: "transcription", script: RepoPaths.root + "/Tests/Fakes/fake_transcription/fake_transcription.py",
            folder: stack.home.scratch, arguments: ["--key", key])
    }

    /// A service that is rate limited or overloaded for a moment (429, 503) is asked again, and
    /// the voice note still becomes the prompt: the chat's copy was already read and removed.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func aServiceBusyForAMomentIsAskedAgain() async throws {
        try await TelegramStack.with { stack in
            let service = try await Self.transcriptionService(stack, key: "sk-test-voice-0123456789")
            defer { Task { await service.stop() } }
            try await service.post("/answer", ["text": "check the build"])
            try await service.post("/fail", ["status": 429, "count": 1])
            try await service.post("/fail", ["status": 503, "count": 1])
            try await stack.start(
                extra: """
                    attachments:
                      transcribe:
                        endpoint: \(StackConfig.quoted(service.apiBase))

                    """, environment: ["TRANSCRIBE_API_KEY": "sk-test-voice-0123456789"])
            try await startSession(stack)
            try await stack.dm("", extra: try await voice(stack, saying: "check the build"))
            let prompt = try await waitFor("the voice note's prompt") { stack.piPrompts(containing: "check the build").first }
            #expect(prompt["message"] == "check the build", "\(prompt)")
            #expect(try await service.get("/requests")["requests"]?.arrayValue?.count == 3)
            let told = try await stack.botMessages(TelegramStack.alice.id).compactMap { $0["text"]?.stringValue }
            #expect(!told.contains { $0.contains("not transcribed") }, "\(told)")
        }
    }

    /// A key the service refuses: the chat hears the status and where the key goes, never the key,
    /// and nothing is sent to pi.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func aRefusedKeyIsSaidWithoutTheKey() async throws {
        try await TelegramStack.with { stack in
            let service = try await Self.transcriptionService(stack, key: "sk-the-right-one")
            defer { Task { await service.stop() } }
            try await stack.start(
                extra: """
                    attachments:
                      transcribe:
                        endpoint: \(StackConfig.quoted(service.apiBase))

                    """, environment: ["TRANSCRIBE_API_KEY": "sk-wrong-key-4242"])
            try await startSession(stack)
            try await stack.dm("", extra: try await voice(stack, saying: "run the tests"))
            let told = try await stack.waitForBotMessage(in: TelegramStack.alice.id, containing: "answered HTTP 401")
            let text = told.last?["text"]?.stringValue ?? ""
            #expect(text.contains("Incorrect API key provided") && text.contains("check the key in .env"), "\(text)")
            #expect(!text.contains("sk-wrong-key"), "\(text)")
            #expect(try await service.get("/requests")["requests"]?.arrayValue?.first?["authorized"] == false)
            for log in ["pi-relayd", "attachments", "telegram"] {
                #expect(!stack.home.read("logs/\(log).log").contains("sk-wrong-key"), "the key is in logs/\(log).log")
            }
            #expect(stack.piPrompts(containing: "").isEmpty)
        }
    }

    /// The terminal's `send --attach NOTE.ogg` hears a voice note the way a chat does: its words
    /// follow the typed text in the prompt.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func aVoiceNoteAttachedAtTheTerminalJoinsThePrompt() async throws {
        try await E2EChatHome.with { chat in
            let config = chat.config(attachments: ["transcribe:", "  command: [\"\(Self.transcriber)/fake-transcribe\", \"{wav}\"]"])
            _ = try await chat.start(config, environment: ["FAKE_TRANSCRIBE_TEXT": "and check the docs"])
            _ = try await chat.newBoundSession("desk")
            let note = chat.home.scratch + "/memo.ogg"
            try Data(try await VoiceSample.ogg("and check the docs", in: chat.home.scratch)).write(to: URL(fileURLWithPath: note))
            let sent = try await chat.home.cli.run(["send", "desk", "run the tests", "--attach", note])
            #expect(sent.status == 0, "\(sent)")
            let prompt = try #require(try await chat.waitForPrompts(1).last)
            #expect(prompt["message"] == "run the tests\nand check the docs", "\(prompt)")
        }
    }

    /// A real offline transcription: PocketSphinx from PyPI, restricted to a grammar, hears the
    /// sentence espeak-ng spoke, exactly.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func pocketSphinxHearsWhatEspeakSaid() async throws {
        guard FileManager.default.isExecutableFile(atPath: VoiceSample.sphinxPython) else {
            Issue.record("\(VoiceSample.sphinxPython) is missing: run make voice-venv (make test does)")
            return
        }
        try await TelegramStack.with { stack in
            try await stack.start(
                extra: """
                    attachments:
                      transcribe:
                        command: [\(StackConfig.quoted(VoiceSample.sphinxPython)), "\(Self.transcriber)/sphinx-transcribe", "{wav}", "\(Self.transcriber)/commands.jsgf"]

                    """)
            try await startSession(stack)
            try await stack.dm("", extra: try await voice(stack, saying: "run the tests"))
            let prompt = try await waitFor("the spoken prompt", timeout: .seconds(90)) { stack.piPrompts(containing: "the").first }
            #expect(prompt["message"] == "run the tests", "\(prompt)")
            try await stack.waitForBotMessage(in: TelegramStack.alice.id, containing: "📝 run the tests")
            // And pi's answer to the spoken prompt comes back to the same chat.
            try await stack.waitForBotMessage(in: TelegramStack.alice.id, containing: "Echo: run the tests")
        }
    }

    static var fakeCommand: String {
        """
        attachments:
          transcribe:
            command: ["\(transcriber)/fake-transcribe", "{wav}"]

        """
    }

    /// A Slack audio clip (a file with subtype slack_audio, served as video/mp4 — spec note
    /// slack-audio-clips.md §1) is audio all the same: downloaded with the bot token, transcribed,
    /// prompted. The fake's clip is Ogg Opus, which opusdec converts.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func aSlackAudioClipBecomesAPrompt() async throws {
        try await SlackStack.with { stack in
            try await stack.start(extra: Self.fakeCommand, environment: ["FAKE_TRANSCRIBE_TEXT": "check the docs"])
            let dm = SlackStack.dm(SlackStack.alice)
            try await stack.command("new \(stack.workspace) clip")
            try await stack.waitForBotMessage(in: dm, containing: "Started clip")
            let ogg = try await VoiceSample.ogg("check the docs", in: stack.home.scratch)
            let clip: JSONValue = [
                "name": "audio_message.webm", "mimetype": "video/webm", "audio_clip": true, "duration_ms": 1500,
                "content_b64": .string(Data(ogg).base64EncodedString()),
            ]
            try await stack.say("", extra: ["files": [clip]])
            let prompt = try await waitFor("the clip's prompt") { stack.piPrompts(containing: "check the docs").first }
            #expect(prompt["message"] == "check the docs", "\(prompt)")
            try await stack.waitForBotMessage(in: dm, containing: "📝 check the docs")
        }
    }

    /// A Discord voice message (flag IS_VOICE_MESSAGE, one audio/ogg attachment with
    /// duration_secs and waveform) is fetched from the CDN, transcribed and prompted.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func aDiscordVoiceMessageBecomesAPrompt() async throws {
        try await StackHome.with { stack in
            var config = StackConfig()
            config.extra = Self.fakeCommand
            try await stack.start(config, environment: ["FAKE_TRANSCRIBE_TEXT": "run the tests"])
            let dm = try await stack.dmChannel()
            _ = try await stack.command("new", ["cwd": .string(stack.workspace), "name": "vm"])
            let ogg = try await VoiceSample.ogg("run the tests", in: stack.home.scratch)
            let posted = try await stack.fake.post(
                "/messages",
                [
                    "user_id": .string(StackUser.alice.id), "username": .string(StackUser.alice.name), "dm": true, "content": "", "voice": true,
                    "attachments": [
                        [
                            "filename": "voice-message.ogg", "content_type": "audio/ogg", "duration_secs": 1.6, "waveform": "AAAA",
                            "data_b64": .string(Data(ogg).base64EncodedString()),
                        ]
                    ],
                ])
            #expect(posted["message"]?["flags"] == 8192, "\(posted)")
            let prompt = try await stack.waitForPiPrompt(containing: "run the tests")
            #expect(prompt["message"] == "run the tests", "\(prompt)")
            try await stack.waitForBotMessage(in: dm, containing: "📝 run the tests")
        }
    }
}
