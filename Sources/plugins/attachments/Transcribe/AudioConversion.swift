import SupervisorIO

/// Turns a voice note into 16 kHz mono 16-bit WAV, what offline recognisers read: with ffmpeg when
/// it is installed (any format), else opusdec from opus-tools (Ogg Opus, which Telegram's and
/// Discord's voice notes are).
struct AudioConversion: Sendable {
    enum Tool: Sendable, Equatable {
        case ffmpeg(String)
        case opusdec(String)
    }

    let tool: Tool?

    /// The tool found on `path` (the plugin's PATH).
    init(path: String) {
        if let ffmpeg = ExecutableSearch.find("ffmpeg", path: path) {
            tool = .ffmpeg(ffmpeg)
        } else if let opusdec = ExecutableSearch.find("opusdec", path: path) {
            tool = .opusdec(opusdec)
        } else {
            tool = nil
        }
    }

    init(tool: Tool?) { self.tool = tool }

    /// Converts `input` to `output`; the reason it could not, else nil.
    func convert(_ input: String, format: AudioFormat, to output: String, timeout: Duration, in folder: String) async -> String? {
        let arguments: [String]
        switch tool {
        case .ffmpeg(let path)?:
            arguments = [
                path, "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-i", input, "-ar", "16000", "-ac", "1", "-c:a", "pcm_s16le", output,
            ]
        case .opusdec(let path)?:
            guard format == .ogg else {
                return "it is \(format.rawValue) audio, which opusdec cannot read: install ffmpeg (the Debian package ffmpeg)"
            }
            arguments = [path, "--quiet", "--rate", "16000", "--force-wav", input, output]
        case nil:
            return "no audio converter is installed: install ffmpeg, or opus-tools for opusdec (Ogg voice notes only)"
        }
        let spec = ChildSpec(executable: arguments[0], arguments: Array(arguments.dropFirst()), workingDirectory: folder)
        let result = await ChildOutput.collect(spec, maxBytes: 64 << 10, timeout: timeout)
        return result.succeeded ? nil : "converting it to WAV failed (\(result.complaint))"
    }
}
