import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#endif

struct LogsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logs", abstract: "Show a log: the daemon's (pi-relayd) or a plugin's.")

    @Argument(help: "pi-relayd (default) or a plugin name.") var name: String = "pi-relayd"
    @Flag(name: .shortAndLong, help: "Keep printing new lines.") var follow = false
    @Option(name: .shortAndLong, help: "Lines to show.") var lines: Int = 50
    @OptionGroup var output: OutputOptions

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
            FileHandle.standardOutput.write(Data((tail.isEmpty ? "" : tail + "\n").utf8))
        }
        guard follow else { return }
        var offset = UInt64(data.count)
        while true {
            usleep(200_000)
            guard let handle = FileHandle(forReadingAtPath: path) else { continue }
            let size = handle.seekToEndOfFile()
            if size < offset { offset = 0 }  // rotated
            handle.seek(toFileOffset: offset)
            let more = handle.readDataToEndOfFile()
            try? handle.close()
            offset += UInt64(more.count)
            if more.isEmpty { continue }
            if output.json { write(json.lines([UInt8](more))) } else { FileHandle.standardOutput.write(more) }
        }
    }

    private func write(_ bytes: [UInt8]) {
        if !bytes.isEmpty { FileHandle.standardOutput.write(Data(bytes)) }
    }
}
