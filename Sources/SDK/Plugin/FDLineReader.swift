import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Reads LF-framed lines from a file descriptor on a dedicated thread (blocking reads never run on
/// the cooperative pool). `closingAtEnd`: the reader owns the descriptor and closes it at end of
/// input (nobody else may close it under a read).
package enum FDLineReader {
    /// The lines as an AsyncStream.
    package static func lines(fd: Int32, maxLineBytes: Int = 8 << 20, closingAtEnd: Bool = false) -> AsyncStream<LineFramer.Event> {
        let (stream, continuation) = AsyncStream<LineFramer.Event>.makeStream(bufferingPolicy: .unbounded)
        read(fd: fd, maxLineBytes: maxLineBytes, closingAtEnd: closingAtEnd, each: { continuation.yield($0) }, end: { continuation.finish() })
        return stream
    }

    /// Calls `each` with every line on the reading thread itself, then `end`: for a caller that
    /// acts on a line without waking another thread (`PluginInbound`).
    package static func read(
        fd: Int32, maxLineBytes: Int = 8 << 20, closingAtEnd: Bool = false, each: @escaping @Sendable (LineFramer.Event) -> Void,
        end: @escaping @Sendable () -> Void
    ) {
        let lines = ChunkedLines(maxLineBytes: maxLineBytes)
        readChunks(
            fd: fd, closingAtEnd: closingAtEnd, each: { lines.feed($0, each) },
            end: {
                lines.finish(each)
                end()
            })
    }

    /// Calls `each` with every chunk read, on the reading thread itself, then `end`.
    package static func readChunks(
        fd: Int32, closingAtEnd: Bool = false, each: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
        end: @escaping @Sendable () -> Void
    ) {
        DedicatedThread.start("fd-reader-\(fd)") {
            let size = 64 * 1024
            let buf = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
            defer { buf.deallocate() }
            while true {
                let bytesRead = Glibc.read(fd, buf, size)
                if bytesRead < 0 && errno == EINTR { continue }
                if bytesRead <= 0 { break }
                each(UnsafeRawBufferPointer(start: buf, count: bytesRead))
            }
            if closingAtEnd { close(fd) }
            end()
        }
    }
}
