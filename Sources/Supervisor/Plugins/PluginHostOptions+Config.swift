extension PluginHostOptions {
    package init(config: Config) {
        self.init()
        let settings = config.plugins
        handshakeTimeout = settings.handshakeTimeout
        pingInterval = settings.pingInterval
        pingTimeout = settings.pingTimeout
        outboxLimit = settings.outboxLimit
        maxLineBytes = settings.maxLineBytes
        shutdownGrace = settings.shutdownGrace
        restart = RestartPolicy.Options(
            immediateRestarts: settings.restart.immediateRestarts, initialBackoff: settings.restart.initialBackoff,
            maxBackoff: settings.restart.maxBackoff,
            jitter: settings.restart.jitter,
            crashLoopCount: settings.restart.crashLoopCount, crashLoopWindow: settings.restart.crashLoopWindow,
            healthyReset: settings.restart.healthyReset)
        logMaxBytes = config.logs.maxBytes
        logKeep = config.logs.keep
        disabled = Set(settings.disabled)
    }
}
