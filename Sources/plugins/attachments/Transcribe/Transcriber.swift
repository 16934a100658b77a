import FoundationEssentials
import PiRelayHTTP
import PiRelaySDK
import SupervisorIO

#if canImport(Glibc)
import Glibc
#endif

/// Turns a voice note into text with what `attachments.transcribe` names: the audio is written to a
/// folder of its own, converted to 16 kHz mono WAV where the command asks for `{wav}` (or for the
/// endpoint when a converter is there), checked against `maxSeconds`, then transcribed. The
/// folder is removed after.
struct Transcriber: Sendable {
    let config: TranscribeConfig
    let conversion: AudioConversion
    /// Where each voice note gets its folder (the plugin's state folder).
    let workFolder: String
    let environment: [String: String]
    let proxy: ProxySetting
    let loop: TransferLoop

    /// More words than any voice note holds; a transcriber that prints more is cut there.
    static let maxTranscriptBytes = 1 << 20

    /// Removes the work folders (`voice-…`, the user's audio and its WAV) an instance killed
    /// mid-transcription left in `folder`: its `defer` never ran, and nothing else would.
    static func removeLeftovers(in folder: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix("voice-") {
            try? FileManager.default.removeItem(atPath: folder + "/" + name)
        }
    }

    static let notSetUp =
        "no transcriber is set up: set attachments.transcribe.command to an offline tool (whisper.cpp: "
        + "[\"whisper-cli\", \"-m\", \"~/models/ggml-base.bin\", \"-nt\", \"-f\", \"{wav}\"]) or attachments.transcribe.endpoint "
        + "to an OpenAI-compatible service, with its key in .env (docs/CONFIG.md, attachments)"

    /// `deadline`: when pi-relayd stops waiting for the request. Each step's time is cut to end
    /// before it, so a slow transcriber yields a note in the prompt rather than a request nobody
    /// waits for any more (and the voice note lost with it).
    func transcribe(
        _ bytes: [UInt8], format: AudioFormat, declaredSeconds: Int?, deadline: ContinuousClock.Instant? = nil
    ) async -> Result<String, TranscribeFailure> {
        guard config.isConfigured else { return .failure(TranscribeFailure(Self.notSetUp)) }
        if let seconds = declaredSeconds, seconds > config.maxSeconds { return .failure(tooLong(seconds)) }
        let folder = workFolder + "/voice-" + UUID().uuidString
        guard mkdir(folder, 0o700) == 0 || errno == EEXIST else {
            return .failure(TranscribeFailure("cannot make a folder for it: \(String(cString: strerror(errno)))"))
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/voice." + format.fileExtension
        guard FileManager.default.createFile(atPath: file, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
            return .failure(TranscribeFailure("cannot write it to \(folder) (is the disk full?)"))
        }
        let configured = Duration.seconds(config.timeoutSeconds)
        var timeout: Duration {
            guard let deadline else { return configured }
            return max(.milliseconds(250), min(configured, deadline - .now - .seconds(1)))
        }
        let wav = folder + "/voice-16k.wav"
        let wantsWAV = config.command.map { $0.contains { $0.contains("{wav}") } } ?? (conversion.tool != nil)
        if wantsWAV {
            if format == .wav && conversion.tool == nil {
                _ = try? FileManager.default.copyItem(atPath: file, toPath: wav)
            } else if let problem = await conversion.convert(file, format: format, to: wav, timeout: timeout, in: folder) {
                return .failure(TranscribeFailure(problem))
            }
            if let data = FileManager.default.contents(atPath: wav), let seconds = AudioFormat.wavSeconds(Array(data)),
                seconds > Double(config.maxSeconds)
            {
                return .failure(tooLong(Int(seconds.rounded(.up))))
            }
        } else if declaredSeconds == nil,
            let refusal = await unmeasuredRefusal(bytes, file: file, format: format, wav: wav, folder: folder, timeout: timeout)
        {
            // An hour of audio must not reach a paid service or tie up the local one because
            // the command reads the file as it came.
            return .failure(refusal)
        }
        let text: Result<String, TranscribeFailure>
        if let command = config.command {
            text = await run(command, file: file, wav: wav, folder: folder, timeout: timeout)
        } else if let url = config.endpointURL {
            guard let key = environment[config.keyEnv], !key.isEmpty else {
                return .failure(TranscribeFailure("the transcription service's key is missing: set \(config.keyEnv) in .env"))
            }
            let endpoint = TranscriptionEndpoint(url: url, model: config.model, language: config.language, key: key, proxy: proxy, loop: loop)
            text =
                wantsWAV
                ? await endpoint.transcribe(path: wav, filename: "voice.wav", contentType: "audio/wav", timeout: timeout)
                : await endpoint.transcribe(
                    path: file, filename: "voice." + format.fileExtension, contentType: "audio/" + format.rawValue, timeout: timeout)
        } else {
            text = .failure(TranscribeFailure(Self.notSetUp))
        }
        return text.flatMap { said in
            let trimmed = said.trimmed()
            return trimmed.isEmpty ? .failure(TranscribeFailure("the transcriber heard no words in it")) : .success(trimmed)
        }
    }

    private func run(_ command: [String], file: String, wav: String, folder: String, timeout: Duration) async -> Result<String, TranscribeFailure> {
        let home = environment["HOME"] ?? ""
        let arguments = command.map { word -> String in
            var word = word
            if word.hasPrefix("~/"), !home.isEmpty { word = home + word.dropFirst() }
            return word.replacing("{file}", with: file).replacing("{wav}", with: wav).replacing("{lang}", with: config.language ?? "en")
        }
        guard let program = ExecutableSearch.find(arguments[0], path: environment["PATH"] ?? "") else {
            return .failure(TranscribeFailure("the transcriber \(arguments[0]) is not installed (attachments.transcribe.command)"))
        }
        let spec = ChildSpec(executable: program, arguments: Array(arguments.dropFirst()), workingDirectory: folder)
        let output = await ChildOutput.collect(spec, maxBytes: Self.maxTranscriptBytes, timeout: timeout)
        guard output.succeeded else {
            if output.timedOut { return .failure(TranscribeFailure("the transcriber took more than \(max(1, Int(timeout.inSeconds.rounded()))) s")) }
            return .failure(TranscribeFailure("the transcriber failed (\(output.complaint))"))
        }
        return .success(output.lines.joined(separator: "\n"))
    }

    /// More than this many bytes a second is not voice: 32 kbit/s, above what a voice note is
    /// coded with. It bounds audio whose length cannot be read.
    static let voiceBytesPerSecond = 4000

    /// Why audio the messenger gave no length for is not transcribed: longer than `maxSeconds` by
    /// a WAV's header or by its conversion to one, or, when neither can tell, larger than voice
    /// of that length could be.
    /// `timeout`: the request's time left, as for the transcription itself: the configured
    /// whole let a slow measure outlast pi-relayd's wait, and the voice note was lost with it.
    private func unmeasuredRefusal(
        _ bytes: [UInt8], file: String, format: AudioFormat, wav: String, folder: String, timeout: Duration
    ) async -> TranscribeFailure? {
        var seconds = format == .wav ? AudioFormat.wavSeconds(bytes) : nil
        if seconds == nil, conversion.tool != nil,
            await conversion.convert(file, format: format, to: wav, timeout: timeout, in: folder) == nil,
            let data = FileManager.default.contents(atPath: wav)
        {
            seconds = AudioFormat.wavSeconds(Array(data))
        }
        if let seconds { return seconds > Double(config.maxSeconds) ? tooLong(Int(seconds.rounded(.up))) : nil }
        guard bytes.count > config.maxSeconds * Self.voiceBytesPerSecond else { return nil }
        let why = conversion.tool == nil ? "no audio converter is installed" : "the audio converter could not read it"
        let fix = conversion.tool == nil ? "install ffmpeg to have it measured" : "send it as a voice note, whose length the messenger says"
        return TranscribeFailure(
            "its length cannot be told (\(why), and the messenger did not say it) and at \(bytes.count) bytes it may be longer than \(config.maxSeconds) s (attachments.transcribe.maxSeconds): \(fix)"
        )
    }

    private func tooLong(_ seconds: Int) -> TranscribeFailure {
        TranscribeFailure("it is \(seconds) s long; voice notes up to \(config.maxSeconds) s are transcribed (attachments.transcribe.maxSeconds)")
    }
}
