extension PluginHostOptions {
    init(config: Config) {
        self.init()
        let p = config.plugins
        handshakeTimeout = p.handshakeTimeout
        pingInterval = p.pingInterval
        pingTimeout = p.pingTimeout
        outboxLimit = p.outboxLimit
        maxLineBytes = p.maxLineBytes
        shutdownGrace = p.shutdownGrace
        restart = RestartPolicy.Options(
            immediateRestarts: p.restart.immediateRestarts, initialBackoff: p.restart.initialBackoff, maxBackoff: p.restart.maxBackoff,
            jitter: p.restart.jitter,
            crashLoopCount: p.restart.crashLoopCount, crashLoopWindow: p.restart.crashLoopWindow,
            healthyReset: p.restart.healthyReset)
        logMaxBytes = config.logs.maxBytes
        logKeep = config.logs.keep
        disabled = Set(p.disabled)
    }
}
