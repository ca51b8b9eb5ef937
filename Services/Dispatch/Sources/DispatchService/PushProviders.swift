/// Where push-dispatch's remote push providers (APNs, FCM, WNS, Web Push) are put together for a deployment.
public enum PushProviders {}
