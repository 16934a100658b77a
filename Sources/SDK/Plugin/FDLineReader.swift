import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Reads LF-framed lines from a file descriptor on a dedicated thread (blocking reads never run on
/// the cooperative pool) and hands them out as an AsyncStream. `closingAtEnd`: the reader owns
/// the descriptor and closes it at end of input (nobody else may close it under a read).
package enum FDLineReader {
    package static func lines(fd: Int32, maxLineBytes: Int = 8 << 20, closingAtEnd: Bool = false) -> AsyncStream<LineFramer.Event> {
        let (stream, continuation) = AsyncStream<LineFramer.Event>.makeStream(bufferingPolicy: .unbounded)
        DedicatedThread.start("fd-reader-\(fd)") {
            var framer = LineFramer(maxLineBytes: maxLineBytes)
            let size = 64 * 1024
            let buf = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
            defer { buf.deallocate() }
            while true {
                let bytesRead = read(fd, buf, size)
                if bytesRead < 0 && errno == EINTR { continue }
                if bytesRead <= 0 { break }
                framer.feed(UnsafeRawBufferPointer(start: buf, count: bytesRead)) { continuation.yield($0) }
            }
            if let tail = framer.finish() { continuation.yield(.unterminatedTail(bytes: tail)) }
            if closingAtEnd { close(fd) }
            continuation.finish()
        }
        return stream
    }
}
