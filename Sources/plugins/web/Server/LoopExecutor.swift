import NIOCore

/// Runs a task's jobs on one NIO event loop, for a task that mostly writes to a channel of that
/// loop (a page's WebSocket). A write from the loop's own thread goes straight to the socket;
/// from a pool thread it wakes the loop to do it, and each wake-up costs more CPU than the write.
final class LoopExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
