import Foundation
import PiRelayHTTP
import PiRelaySDK
import Testing

@testable import AttachmentsPlugin

/// Voice notes to text, without a messenger: the config, the audio checks, and each way a
/// transcription fails, each told in words a chat can show.
@Suite struct TranscriberTests {
    let folder = TemporaryFolder()

    /// A 16 kHz mono 16-bit WAV of `seconds` of silence.
    static func wav(seconds: Double) -> [UInt8] {
        let samples = Int(16_000 * seconds)
        func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }
        var bytes = Array("RIFF".utf8) + le32(36 + samples * 2) + Array("WAVEfmt ".utf8) + le32(16)
        bytes += [1, 0, 1, 0] + le32(16_000) + le32(32_000) + [2, 0, 16, 0] + Array("data".utf8) + le32(samples * 2)
        return bytes + [UInt8](repeating: 0, count: samples * 2)
    }

    /// A shell script as the transcriber command.
    func script(_ name: String, _ body: String) -> String {
        let path = folder.write(name, Array("#!/bin/sh\n\(body)\n".utf8))
        chmod(path, 0o755)
        return path
    }

    func transcriber(
        _ tweak: (inout TranscribeConfig) -> Void, tool: AudioConversion.Tool? = nil, environment: [String: String] = [:]
    )
        -> Transcriber
    {
        var config = TranscribeConfig()
        tweak(&config)
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }
        return Transcriber(
            config: config, conversion: AudioConversion(tool: tool), workFolder: folder.path, environment: env, proxy: .direct, loop: .shared)
    }

    func reason(_ result: Result<String, TranscribeFailure>) -> String {
        switch result {
        case .success(let text): "heard: \(text)"
        case .failure(let failure): failure.reason
        }
    }

    @Test func theConfigSaysWhatIsWrong() throws {
        #expect(try TranscribeConfig(json: .null) == TranscribeConfig())
        let set = try TranscribeConfig(json: ["command": ["whisper-cli", "-f", "{wav}"], "language": "de", "maxSeconds": 60])
        #expect(set.command == ["whisper-cli", "-f", "{wav}"] && set.language == "de" && set.maxSeconds == 60)
        #expect(try TranscribeConfig(json: ["endpoint": "https://api.example/v1/"]).endpointURL == "https://api.example/v1/audio/transcriptions")
        for (json, words) in [
            (["command": "whisper-cli {wav}"] as JSONValue, "list of words"), (["endpoint": "api.example"], "http(s) URL"),
            (["command": ["x"], "endpoint": "https://a"], "not both"), (["language": "English"], "language code"),
            (["maxSeconds": 0], "maxSeconds"), ("loud", "mapping"),
        ] {
            #expect(throws: ConfigProblem.self) { try TranscribeConfig(json: json) }
            do { _ = try TranscribeConfig(json: json) } catch { #expect(error.message.contains(words), "\(json): \(error.message)") }
        }
        #expect(try AttachmentsConfig(json: ["transcribe": ["command": ["x"]]]).transcribe.command == ["x"])
    }

    @Test func audioIsKnownByItsBytesAndAWAVByItsLength() {
        #expect(AudioFormat(Array("OggS".utf8) + [0, 2]) == .ogg)
        #expect(AudioFormat([0x1A, 0x45, 0xDF, 0xA3, 1]) == .webm)
        #expect(AudioFormat([0, 0, 0, 32] + Array("ftypM4A ".utf8)) == .mp4)
        #expect(AudioFormat(Array("ID3".utf8) + [3, 0]) == .mp3)
        #expect(AudioFormat(Array("hello".utf8)) == nil)
        #expect(AudioFormat.wavSeconds(Self.wav(seconds: 2.5)) == 2.5)
        #expect(AudioFormat.wavSeconds(Array("OggS....".utf8)) == nil)
    }

    /// What counts as a voice note: one the messenger calls so, a file declared as audio, or an
    /// audio-only format; an MP4 or WebM (as often video) only when called audio.
    @Test func audioIsWhatIsSaidOrKnownToBeSound() {
        let inbound = Inbound(config: AttachmentsConfig(), proxy: .direct, loop: .shared, spoolDir: nil)
        let ogg = Download(bytes: Array("OggS".utf8) + [0, 2, 0, 0], contentType: nil)
        let mp4 = Download(bytes: [0, 0, 0, 32] + Array("ftypisom".utf8) + [0, 0, 2, 0], contentType: nil)
        func item(voice: Bool = false, type: String? = nil) -> InboundItem {
            InboundItem(source: .path("/x"), name: "x", declaredType: type, voice: voice)
        }
        #expect(inbound.audio(item(), ogg) == .ogg)
        #expect(inbound.audio(item(), mp4) == nil, "a video's container is not sound")
        #expect(inbound.audio(item(type: "video/mp4"), mp4) == nil)
        #expect(inbound.audio(item(type: "audio/mp4"), mp4) == .mp4)
        #expect(inbound.audio(item(voice: true, type: "video/mp4"), mp4) == .mp4, "Slack's clips say video/mp4")
        #expect(inbound.audio(item(voice: true), Download(bytes: Array("plain words".utf8), contentType: nil)) == nil)
    }

    @Test func nothingSetUpSaysHowToSetItUp() async {
        let result = await transcriber { _ in }.transcribe(Self.wav(seconds: 1), format: .wav, declaredSeconds: 1)
        #expect(reason(result) == Transcriber.notSetUp)
    }

    @Test func aCommandIsRunWithItsPlaceholdersAndItsWordsAreTrimmed() async {
        let echo = script("echo-args", "echo \"  $1|$2|$(basename $3)  \"")
        let result = await transcriber {
            $0.command = [echo, "{lang}", "{wav}", "{file}"]; $0.language = "fr"
        }
        .transcribe(Self.wav(seconds: 1), format: .wav, declaredSeconds: nil)
        let text = reason(result)
        #expect(text.hasPrefix("heard: fr|") && text.hasSuffix("voice-16k.wav|voice.wav"), "\(text)")
    }

    /// pi-relayd waits 120 s for the attachments: a transcriber slower than what is left of that
    /// is stopped in time, and the prompt gets a note, where the request used to outlast the wait
    /// and the voice note was lost ("the attachments plugin is not available").
    @Test func aSlowTranscriberEndsBeforeTheRequestsDeadline() async {
        let slow = script("slower", "sleep 30")
        let started = ContinuousClock.now
        let result = await transcriber { $0.command = [slow, "{wav}"] }
            .transcribe(Self.wav(seconds: 1), format: .wav, declaredSeconds: nil, deadline: .now + .seconds(3))
        #expect(reason(result) == "the transcriber took more than 2 s", "\(reason(result))")
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    /// Audio the messenger gave no length for is measured by converting it first: that step too
    /// ends before the request's deadline, where it took the configured whole (120 s).
    @Test func measuringAudioOfNoStatedLengthEndsBeforeTheRequestsDeadline() async {
        let slowConverter = script("ffmpeg", "sleep 30")
        let echo = script("echo-file", "echo hi")
        let started = ContinuousClock.now
        _ = await transcriber({ $0.command = [echo, "{file}"] }, tool: .ffmpeg(slowConverter))
            .transcribe([UInt8](repeating: 1, count: 1000), format: .mp3, declaredSeconds: nil, deadline: .now + .seconds(3))
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    /// The work folder of a transcription a killed instance left (the user's audio and its WAV)
    /// is removed when the next instance starts; nothing else in the state folder is.
    @Test func workFoldersAKilledInstanceLeftAreRemoved() throws {
        let left = folder.path + "/voice-0D1E"
        try FileManager.default.createDirectory(atPath: left, withIntermediateDirectories: true)
        _ = folder.write("voice-0D1E/voice.ogg", [1, 2, 3])
        _ = folder.write("kept.json", Array("{}".utf8))
        Transcriber.removeLeftovers(in: folder.path)
        #expect(!FileManager.default.fileExists(atPath: left))
        #expect(FileManager.default.fileExists(atPath: folder.path + "/kept.json"))
    }

    @Test func eachFailureIsSaid() async {
        let wav = Self.wav(seconds: 3)
        let slow = script("slow", "sleep 30")
        #expect(
            reason(
                await transcriber {
                    $0.command = [slow, "{wav}"]; $0.timeoutSeconds = 1
                }.transcribe(wav, format: .wav, declaredSeconds: nil))
                == "the transcriber took more than 1 s")
        let quiet = script("quiet", "echo '  '")
        #expect(
            reason(await transcriber { $0.command = [quiet] }.transcribe(wav, format: .wav, declaredSeconds: nil))
                == "the transcriber heard no words in it")
        let failing = script("failing", "echo 'model file not found' >&2; exit 2")
        let failed = reason(await transcriber { $0.command = [failing] }.transcribe(wav, format: .wav, declaredSeconds: nil))
        #expect(failed.contains("the transcriber failed") && failed.contains("model file not found"), "\(failed)")
        #expect(
            reason(await transcriber { $0.command = ["no-such-transcriber-here", "{wav}"] }.transcribe(wav, format: .wav, declaredSeconds: nil))
                == "the transcriber no-such-transcriber-here is not installed (attachments.transcribe.command)")
        // Too long: by the messenger's word, or by the WAV's own length.
        let echo = script("echo", "echo hi")
        #expect(
            reason(
                await transcriber {
                    $0.command = [echo]; $0.maxSeconds = 2
                }.transcribe(wav, format: .wav, declaredSeconds: 9)
            ).contains("it is 9 s long"))
        #expect(
            reason(
                await transcriber {
                    $0.command = [echo, "{wav}"]; $0.maxSeconds = 2
                }.transcribe(wav, format: .wav, declaredSeconds: nil)
            )
            .contains("it is 3 s long"))
        // A command that reads the file as it came: the length is still checked, a WAV by its
        // header, and audio no converter can measure by its size.
        #expect(
            reason(
                await transcriber {
                    $0.command = [echo, "{file}"]; $0.maxSeconds = 2
                }.transcribe(wav, format: .wav, declaredSeconds: nil)
            )
            .contains("it is 3 s long"))
        let unmeasured = reason(
            await transcriber {
                $0.command = [echo, "{file}"]; $0.maxSeconds = 2
            }.transcribe(
                [UInt8](repeating: 0xFF, count: 9000), format: .mp3, declaredSeconds: nil))
        #expect(unmeasured.contains("its length cannot be told") && unmeasured.contains("install ffmpeg"), "\(unmeasured)")
        #expect(
            reason(
                await transcriber {
                    $0.command = [echo, "{file}"]; $0.maxSeconds = 2
                }.transcribe(
                    [UInt8](repeating: 0xFF, count: 4000), format: .mp3, declaredSeconds: nil)) == "heard: hi",
            "small enough to be voice of that length")
        // No converter for an Ogg note the command wants as WAV; opusdec cannot read WebM.
        let ogg = Array("OggS".utf8) + [UInt8](repeating: 1, count: 100)
        #expect(
            reason(await transcriber { $0.command = [echo, "{wav}"] }.transcribe(ogg, format: .ogg, declaredSeconds: nil))
                .contains("no audio converter is installed"))
        #expect(
            reason(
                await transcriber({ $0.command = [echo, "{wav}"] }, tool: .opusdec("/usr/bin/opusdec")).transcribe(
                    ogg, format: .webm, declaredSeconds: nil)
            )
            .contains("install ffmpeg"))
        // The endpoint's key is missing: said by its variable's name.
        #expect(
            reason(
                await transcriber {
                    $0.endpoint = "http://127.0.0.1:9/v1"; $0.keyEnv = "NO_SUCH_KEY_VAR"
                }.transcribe(wav, format: .wav, declaredSeconds: nil))
                == "the transcription service's key is missing: set NO_SUCH_KEY_VAR in .env")
        // A service that is not there: said, and the key is not.
        let unreachable = reason(
            await transcriber({ $0.endpoint = "http://127.0.0.1:9/v1" }, environment: ["TRANSCRIBE_API_KEY": "sk-unit-4242"])
                .transcribe(wav, format: .wav, declaredSeconds: nil))
        #expect(unreachable.hasPrefix("the transcription service could not be reached") && !unreachable.contains("sk-unit"), "\(unreachable)")
        // Each note's folder is gone afterwards.
        #expect((try? FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("voice-") }) == [])
    }
}
