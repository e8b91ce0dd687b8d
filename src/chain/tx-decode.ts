// A transaction's bytes decoded into its parts (TxRaw → TxBody and AuthInfo), as the SDK's
// decoder reads them: what both APIs print of a stored transaction starts here.
import { AuthInfo, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';

export interface DecodedTx {
  raw: TxRaw;
  body: TxBody;
  authInfo: AuthInfo;
}

/** The parts of a tx; throws when its bytes do not decode. */
export function decodeTxParts(txBytes: Uint8Array): DecodedTx {
  const raw = TxRaw.decode(txBytes);
  return { raw, body: TxBody.decode(raw.bodyBytes), authInfo: AuthInfo.decode(raw.authInfoBytes) };
}

/**
 * The parts of a tx, or null when its bytes do not decode (a block may carry bytes its chain
 * refused to run).
 */
export function tryDecodeTxParts(txBytes: Uint8Array): DecodedTx | null {
  try {
    return decodeTxParts(txBytes);
  } catch {
    return null;
  }
}
