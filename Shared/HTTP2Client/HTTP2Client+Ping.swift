import NIOCore
import NIOHTTP2

extension HTTP2Client {
    /// Checks the current connection with an HTTP/2 PING (RFC 9113 §6.7) and returns the round-trip time.
    ///
    /// A long-lived connection can die silently (a NAT or load balancer forgets it, the peer's host vanishes);
    /// the next request would then wait for its whole timeout. A PING the peer must acknowledge proves the
    /// connection works without sending a request. When no acknowledgement arrives within `timeout`, or the
    /// connection fails meanwhile, the connection is retired — streams still running on it finish, new requests
    /// open a new connection — and the error is thrown.
    ///
    /// - Returns: the round-trip time, or `nil` when there is no open connection to check (the next request
    ///   opens one).
    /// - Throws: ``HTTP2ClientError/timeout`` when the acknowledgement did not arrive in time,
    ///   ``HTTP2ClientError/connectionClosed`` when the connection closed first, or `CancellationError`.
    public func ping(timeout: Duration) async throws -> Duration? {
        guard let connection = pool.withLock({ $0.currentConnection }), connection.acceptsNewStreams else {
            return nil
        }
        let channel = connection.channel
        let data = HTTP2PingData(withInteger: UInt64.random(in: .min ... .max))
        let handlerName = "securepush.ping.\(data.integer)"
        let acknowledged = channel.eventLoop.makePromise(of: Void.self)
        let clock = ContinuousClock()
        let start = clock.now
        do {
            try await channel.eventLoop.submit {
                try channel.pipeline.syncOperations.addHandler(
                    HTTP2PingAcknowledgementHandler(data: data, acknowledged: acknowledged),
                    name: handlerName
                )
            }.get()
            try await channel.writeAndFlush(
                HTTP2Frame(streamID: .rootStream, payload: .ping(data, ack: false))
            ).get()
            try await acknowledged.futureResult.get(
                deadline: NIODeadline.now() + TimeAmount(timeout),
                timeoutError: HTTP2ClientError(.timeout, "no PING acknowledgement within \(timeout)")
            )
        } catch {
            acknowledged.fail(HTTP2ClientError(.connectionClosed))
            channel.pipeline.removeHandler(name: handlerName, promise: nil)
            if error is CancellationError { throw error }
            logger.debug("HTTP/2 PING failed, retiring the connection", metadata: ["error": "\(error)"])
            connection.retire()
            if let error = error as? HTTP2ClientError { throw error }
            throw HTTP2ClientError(.connectionClosed, "PING failed: \(error)")
        }
        channel.pipeline.removeHandler(name: handlerName, promise: nil)
        return clock.now - start
    }
}

/// Sits at the end of the connection pipeline for one PING and completes `acknowledged` when its ACK arrives.
private final class HTTP2PingAcknowledgementHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame

    private let data: HTTP2PingData
    private let acknowledged: EventLoopPromise<Void>

    init(data: HTTP2PingData, acknowledged: EventLoopPromise<Void>) {
        self.data = data
        self.acknowledged = acknowledged
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        if case .ping(let pingData, ack: true) = frame.payload, pingData == self.data {
            acknowledged.succeed()
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        acknowledged.fail(HTTP2ClientError(.connectionClosed, "the connection closed before the PING was acknowledged"))
        context.fireChannelInactive()
    }
}
