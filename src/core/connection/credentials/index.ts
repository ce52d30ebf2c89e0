// The credential a request is made with: the gateway's own, or on a team gateway the user's on whose
// behalf it is made (token exchange), passed with the request.
export { asUser, credentialHeaders, takesUserCredential, userCredentialFetch, userTokenFor, type OnBehalfOf } from './userCredential';
