/// One pipe as `PipeGrowth` sees it: the capacity it had when its reader took it (its own
/// standard: Linux's default on this machine, less for a user past its pipe budget, more where
/// pages are larger or the writer resized it), the capacity it has now, and whether the policy
/// grew it. Only a pipe the policy grew is shrunk again or counted against `maxGrown`.
package struct PipeSize: Sendable, Equatable {
    package let standard: Int
    package internal(set) var capacity: Int
    package internal(set) var grown = false

    package init(capacity: Int) {
        standard = capacity
        self.capacity = capacity
    }
}
