import Synchronization

/// Lines framed from chunks of bytes as a reader hands them over, from one thread at a time
/// (`FDLineReader`, or a plugin's own reader through `Plugin.readInput`).
package final class ChunkedLines: Sendable {
    private let framer: Mutex<LineFramer>

    package init(maxLineBytes: Int) {
        framer = Mutex(LineFramer(maxLineBytes: maxLineBytes))
    }

    /// Each line `chunk` completes, to `each`.
    package func feed(_ chunk: UnsafeRawBufferPointer, _ each: (LineFramer.Event) -> Void) {
        framer.withLock { $0.feed(chunk) { each($0) } }
    }

    /// The end of input: a last line without its LF, if any, to `each`.
    package func finish(_ each: (LineFramer.Event) -> Void) {
        if let tail = framer.withLock({ $0.finish() }) { each(.unterminatedTail(bytes: tail)) }
    }
}
