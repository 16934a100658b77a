import FoundationEssentials
import PiRelayHTTP
import PiRelaySDK

/// The attachments plugin: chat attachments in (images for the model, text into the prompt),
/// workspace files out (checked, then copied to the spool for the messenger to upload).
public struct Attachments: Plugin {
    public static let manifest = PluginManifest(
        name: "attachments", version: "0.1.0", roles: ["attachments"],
        summary: "turns chat attachments into prompt content and checks workspace files before they are uploaded",
        config: AttachmentsConfig.schema)

    let config: AttachmentsConfig
    let inbound: Inbound
    let outbound: Outbound
    let context: PluginContext

    public init(context: PluginContext) async throws {
        do {
            config = try AttachmentsConfig(json: context.config)
        } catch {
            throw PluginExit.notConfigured(error.message)
        }
        let proxy = ProxySetting.resolve(configured: config.proxy, environment: ProcessInfo.processInfo.environment)
        var inbound = Inbound(config: config, proxy: proxy, loop: .shared, spoolDir: context.spoolDir)
        let conversion = AudioConversion(path: ProcessInfo.processInfo.environment["PATH"] ?? "")
        // One instance at a time: what a killed one was transcribing is no one's now.
        Transcriber.removeLeftovers(in: context.stateDir)
        inbound.transcriber = Transcriber(
            config: config.transcribe, conversion: conversion, workFolder: context.stateDir,
            environment: ProcessInfo.processInfo.environment, proxy: proxy, loop: .shared)
        self.inbound = inbound
        outbound = Outbound(spoolDir: context.spoolDir)
        self.context = context
        let transcription =
            config.transcribe.command.map { "command \($0[0])" } ?? config.transcribe.endpoint.map { "endpoint \(SecretURL(owned: $0))" }
            ?? "off (voice notes are answered with how to set it up)"
        context.logger.info("voice notes: \(transcription); converter \(conversion.tool.map { "\($0)" } ?? "none (install ffmpeg or opus-tools)")")
        context.logger.info(
            "ready: proxy \(proxy.redacted), download limit \(ByteCount.describe(config.downloadMaxBytes)), image limit \(ByteCount.describe(config.imageMaxBytes)), text limit \(ByteCount.describe(config.textInlineMaxBytes))"
        )
    }

    public func handle(_ request: PluginRequest) async throws -> JSONValue {
        switch request.name {
        case .attachmentsInbound:
            let params = try InboundRequest(params: request.params)
            let result = await inbound.run(params, deadline: request.deadline)
            // File names and reasons only: links can carry signed tokens, so they are never logged.
            for note in result.notes { context.logger.info("session \(params.sessionID ?? "?"): \(note)") }
            context.logger.info(
                "session \(params.sessionID ?? "?"): \(params.items.count) attachment(s), \(result.images.count) image(s) sent, \(result.notes.count) left out"
            )
            return result.json
        case .attachmentsOutbound:
            do {
                return try await outbound.run(request.params)
            } catch {
                context.logger.info("outbound refused: \(error.message)")
                throw error
            }
        case .status:
            return [
                "proxy": .string(inbound.proxy.redacted), "downloadMaxBytes": JSONValue(config.downloadMaxBytes),
                "imageMaxBytes": JSONValue(config.imageMaxBytes), "textInlineMaxBytes": JSONValue(config.textInlineMaxBytes),
                "timeoutSeconds": .number(config.timeoutSeconds), "maxRedirects": JSONValue(config.maxRedirects),
            ]
        default:
            throw RemoteError.methodNotFound(request.method)
        }
    }
}
