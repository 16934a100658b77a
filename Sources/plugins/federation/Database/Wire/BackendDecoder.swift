import NIOCore

/// Cuts the server's byte stream into messages: a type byte, then a length that counts itself.
struct BackendDecoder: ByteToMessageDecoder {
    typealias InboundOut = BackendMessage

    /// No message the client reads comes near this; a larger length is a stream out of step.
    static let largest = 64 << 20

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let type = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self),
            let length = buffer.getInteger(at: buffer.readerIndex + 1, as: Int32.self)
        else { return .needMoreData }
        guard length >= 4, Int(length) <= Self.largest else { throw WireError.protocolViolation("a message of \(length) bytes") }
        guard buffer.readableBytes >= 1 + Int(length) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 5)
        var body = buffer.readSlice(length: Int(length) - 4)!
        context.fireChannelRead(wrapInboundOut(try BackendMessage(type: type, body: &body)))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        try decode(context: context, buffer: &buffer)
    }
}
