/// A plugin linked into the supervisor's own process, for tests of the chat and command layers
/// that need no process per plugin. It speaks the plugin protocol on a pipe pair, through the
/// same framing, caps and outbox as a plugin in its own process (`PluginRuntime.serve`). A stop
/// or kill closes its input, and it ends when its tasks have: nothing in one process can kill a
/// plugin whose tasks ignore cancellation, so only plugins that honour it are linked.
package struct InProcessPlugin: Sendable {
    /// Its name, as a plugin's folder entry would give it.
    package let name: String
    /// Serves the protocol reading `input` and writing `output`, closes both, and returns the
    /// exit status a process would have exited with.
    package let serve: @Sendable (_ input: Int32, _ output: Int32) async -> Int32

    package init(name: String, serve: @escaping @Sendable (_ input: Int32, _ output: Int32) async -> Int32) {
        self.name = name
        self.serve = serve
    }

    /// What stands for its executable's path in logs and `plugins`.
    package var path: String { "in-process:" + name }
}
