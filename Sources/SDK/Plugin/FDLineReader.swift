import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads LF-framed lines from a file descriptor on a dedicated thread (blocking reads never run on
/// the cooperative pool) and hands them out as an AsyncStream.
package enum FDLineReader {
    package static func lines(fd: Int32, maxLineBytes: Int = 8 << 20) -> AsyncStream<LineFramer.Event> {
        let (stream, continuation) = AsyncStream<LineFramer.Event>.makeStream(bufferingPolicy: .unbounded)
        let t = Thread {
            var framer = LineFramer(maxLineBytes: maxLineBytes)
            let size = 64 * 1024
            let buf = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
            defer { buf.deallocate() }
            while true {
                let n = read(fd, buf, size)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                framer.feed(UnsafeRawBufferPointer(start: buf, count: n)) { continuation.yield($0) }
            }
            if let tail = framer.finish() { continuation.yield(.unterminatedTail(bytes: tail)) }
            continuation.finish()
        }
        t.name = "fd-reader-\(fd)"
        t.start()
        return stream
    }
}
