/// How the schedules' loop sleeps: until the next schedule is due, or until one is added or
/// removed. A ring while the loop is not asleep is kept for its next sleep, once.
package actor ScheduleAlarm {
    private var sleeper: CheckedContinuation<Void, Never>?
    private var rung = false
    /// The sleep ended by its timer, before its waiter had begun to wait: it returns at once.
    private var released = false

    package init() {}

    package func ring() {
        if let sleeper {
            self.sleeper = nil
            sleeper.resume()
        } else {
            rung = true
        }
    }

    /// Returns after `delay`, at a ring, or once the task is cancelled.
    package func sleep(for delay: Duration) async {
        if rung {
            rung = false
            return
        }
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                try? await Task.sleep(for: delay)
                return false
            }
            group.addTask {
                await self.waitForRing()
                return true
            }
            let rang = await group.next() ?? false
            group.cancelAll()
            // A continuation does not see cancellation: the waiter is let go by hand, without
            // counting as a ring (which would end the next sleep at once, and the next).
            if !rang { release() }
        }
    }

    private func waitForRing() async {
        if released {
            released = false
            return
        }
        if rung {
            rung = false
            return
        }
        await withCheckedContinuation { sleeper = $0 }
    }

    private func release() {
        if let sleeper {
            self.sleeper = nil
            sleeper.resume()
        } else {
            released = true
        }
    }
}
