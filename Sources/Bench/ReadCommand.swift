import PiRelaySDK

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `read`: the relay's stdout path for one pi child — read(2) in 1 MiB chunks from a pipe that
/// grows when a read finds it full (`PipeGrowth`, as pi-relayd grows pi's), `LineFramer`,
/// `PiEventReader` — over a recorded or generated stream on stdin. `--standard-pipe` leaves the
/// pipe at Linux's 64 KiB, for comparison.
///
/// stdout gets `events=N deltaChars=M` (N lines read as events, M Unicode scalars of `text_delta`
/// deltas) so it can be compared with the generator's count; timing goes to stderr.
struct ReadCommand {
    static let chunkBytes = PipeGrowth.grown
    var maxLineBytes = 1 << 30
    var growsPipe = true

    init?(arguments: [String]) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--max-line-bytes":
                guard let value = rest.popFirst().flatMap({ Int($0) }), value > 0 else {
                    StandardError.emit("read: --max-line-bytes needs a positive integer\n")
                    return nil
                }
                maxLineBytes = value
            case "--standard-pipe":
                growsPipe = false
            default:
                StandardError.emit(
                    "read: unknown argument \(argument)\nusage: pi-relayd-bench read [--max-line-bytes N] [--standard-pipe] < stream\n")
                return nil
            }
        }
    }

    func run() -> Int32 {
        var framer = LineFramer(maxLineBytes: maxLineBytes)
        let reader = PiEventReader()
        var events = 0
        var deltaChars = 0
        var unreadable = 0
        var oversized = 0
        var totalBytes = 0
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: Self.chunkBytes, alignment: 64)
        defer { buffer.deallocate() }
        var growth = PipeGrowth()
        var pipe = growsPipe ? PipeCapacity.of(0).map(PipeSize.init(capacity:)) : nil
        let started = Self.now()
        while true {
            let bytesRead = read(0, buffer, Self.chunkBytes)
            if bytesRead < 0 {
                if errno == EINTR { continue }
                perror("read: stdin")
                return 1
            }
            if bytesRead == 0 { break }
            if let known = pipe { pipe = PipeCapacity.adjust(0, pipe: known, afterRead: bytesRead, growth: &growth) }
            totalBytes += bytesRead
            framer.feed(UnsafeRawBufferPointer(start: buffer, count: bytesRead)) { framed in
                switch framed {
                case .line(let line):
                    do {
                        let event = try reader.read(line)
                        events += 1
                        if let update = event.assistantMessageEvent, update.type == .textDelta,
                            let delta = update.delta
                        {
                            deltaChars += delta.unicodeScalars.count
                        }
                    } catch {
                        unreadable += 1
                    }
                case .oversized:
                    oversized += 1
                case .unterminatedTail:
                    break
                }
            }
        }
        let tail = framer.finish()
        let seconds = Self.now() - started
        print("events=\(events) deltaChars=\(deltaChars)")
        let mb = Double(totalBytes) / 1e6
        StandardError.emit(
            "read \(Self.format(mb)) MB in \(Self.format(seconds)) s = \(Self.format(mb / max(seconds, 1e-9))) MB/s;"
                + " unreadable=\(unreadable) oversized=\(oversized) unterminatedTail=\(tail ?? 0)\n")
        return 0
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func format(_ value: Double) -> String {
        let hundredths = (value * 100).rounded()
        return "\(Int(hundredths) / 100).\(String(Int(hundredths) % 100).leftPadded(to: 2))"
    }
}
