import Foundation

/// Speech for voice-note tests: a sentence spoken by espeak-ng and encoded by opusenc as Ogg Opus,
/// what Telegram and Discord voice notes are (`make deps` installs both).
enum VoiceSample {
    static func ogg(_ sentence: String, in folder: String) async throws -> [UInt8] {
        let wav = folder + "/voice-\(UUID().uuidString).wav"
        let ogg = wav.replacingOccurrences(of: ".wav", with: ".ogg")
        for (program, arguments) in [
            ("/usr/bin/espeak-ng", ["-v", "en-us", "-s", "140", "-w", wav, sentence]), ("/usr/bin/opusenc", ["--quiet", wav, ogg]),
        ] {
            guard FileManager.default.isExecutableFile(atPath: program) else {
                throw StackFailure("\(program) is missing: make deps installs espeak-ng and opus-tools")
            }
            let process = try SpawnedProcess(
                program, arguments, environment: ["PATH": "/usr/bin:/bin"], stdoutPath: folder + "/voice.out", stderrPath: folder + "/voice.err")
            guard await process.wait(timeout: .seconds(60)) == .exited(0) else { throw StackFailure("\(program) failed: \(process.stderr)") }
        }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: ogg)))
    }

    /// The virtual environment with PyPI's pocketsphinx (`make voice-venv`).
    static var sphinxPython: String { RepoPaths.root + "/.build/voice-venv/bin/python" }
}
