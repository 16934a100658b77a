import ArgumentParser
import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import Supervisor
import SupervisorIO
#endif

struct LogsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logs", abstract: "Show a log: the daemon's (pi-relayd) or a plugin's.")

    @Argument(help: "pi-relayd (default) or a plugin name.") var name: String = "pi-relayd"
    @Flag(name: .shortAndLong, help: "Keep printing new lines.") var follow = false
    @Option(name: .shortAndLong, help: "Lines to show.") var lines: Int = 50
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard lines >= 0 else { throw ValidationError("--lines must be 0 or more") }
    }

    func run() throws {
        let home = Home.resolve()
        let path = home.logFile(name)
        guard FileManager.default.fileExists(atPath: path) else {
            let known = ((try? FileManager.default.contentsOfDirectory(atPath: home.logsDir)) ?? [])
                .filter { $0.hasSuffix(".log") }.map { String($0.dropLast(4)) }.sorted()
            throw ValidationError("no log \(path)\(known.isEmpty ? "" : "; logs: " + known.joined(separator: ", "))")
        }
        let data = FileManager.default.contents(atPath: path) ?? Data()
        let text = String(decoding: data, as: UTF8.self)
        let all = text.split(separator: "\n", omittingEmptySubsequences: true)
        var json = LogLinesJSON()
        if output.json {
            write(json.lines(Array(all.suffix(lines).joined(separator: "\n").utf8) + (all.isEmpty ? [] : [0x0A])))
        } else {
            let tail = all.suffix(lines).joined(separator: "\n")
            StandardStreams.writeOutput(tail.isEmpty ? "" : tail + "\n")
        }
        guard follow else { return }
        var offset = UInt64(data.count)
        while true {
            usleep(200_000)
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            let size = UInt64(max(0, lseek(fd, 0, SEEK_END)))
            if size < offset { offset = 0 }  // rotated
            var more = [UInt8](repeating: 0, count: Int(size - offset))
            let got = more.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) }
            close(fd)
            more.removeLast(more.count - max(0, got))
            offset += UInt64(more.count)
            if more.isEmpty { continue }
            if output.json { write(json.lines(more)) } else { StandardStreams.writeOutput(more) }
        }
    }

    private func write(_ bytes: [UInt8]) {
        if !bytes.isEmpty { StandardStreams.writeOutput(bytes) }
    }
}
