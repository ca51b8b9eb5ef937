import Logging
import NIOCore
import NIOTLS

/// Waits behind the TLS handler for the handshake: when ALPN picked `h2`, puts the nghttp2 client session in its
/// place (before any decrypted byte is read) and succeeds; otherwise fails with the reason and closes.
final class HTTP2ClientTLSNegotiation: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let negotiated: EventLoopPromise<NIOLoopBound<HTTP2ClientSession>>
    private let makeSession: () -> HTTP2ClientSession

    init(
        negotiated: EventLoopPromise<NIOLoopBound<HTTP2ClientSession>>,
        makeSession: @escaping () -> HTTP2ClientSession
    ) {
        self.negotiated = negotiated
        self.makeSession = makeSession
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard case TLSUserEvent.handshakeCompleted(let negotiatedProtocol) = event else {
            return context.fireUserInboundEventTriggered(event)
        }
        guard negotiatedProtocol == "h2" else {
            fail(context: context, "the server did not select h2 via ALPN (got \(negotiatedProtocol ?? "none"))")
            return
        }
        let session = makeSession()
        do {
            try context.pipeline.syncOperations.addHandler(session, position: .after(self))
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        } catch {
            fail(context: context, "\(error)")
            return
        }
        negotiated.succeed(NIOLoopBound(session, eventLoop: context.eventLoop))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(context: context, "\(error)")
    }

    func channelInactive(context: ChannelHandlerContext) {
        negotiated.fail(HTTP2ClientConnectError(kind: .tls, detail: "the connection closed during the TLS handshake"))
        context.fireChannelInactive()
    }

    private func fail(context: ChannelHandlerContext, _ reason: String) {
        negotiated.fail(HTTP2ClientConnectError(kind: .tls, detail: reason))
        context.close(promise: nil)
    }
}
