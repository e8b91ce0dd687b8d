// Keys of the devnet's well-known accounts: the standard cosmos HD path m/44'/118'/0'/0/i of
// the mnemonic, as DirectSecp256k1HdWallet derives them, and the validators' ed25519 keys.
import { makeCosmoshubPath, rawSecp256k1PubkeyToRawAddress } from '@cosmjs/amino';
import { Bip39, Ed25519, EnglishMnemonic, Secp256k1, Slip10, Slip10Curve, sha256 } from '@cosmjs/crypto';
import { toAscii } from '@cosmjs/encoding';
import { toAccountAddress } from './addresses.ts';

export interface AccountKey {
  index: number;
  address: string;
  /** Compressed secp256k1 public key. */
  pubkey: Uint8Array;
  privkey: Uint8Array;
}

export async function deriveAccountKeys(mnemonic: string, indexes: readonly number[]): Promise<AccountKey[]> {
  const seed = await Bip39.mnemonicToSeed(new EnglishMnemonic(mnemonic));
  const keys: AccountKey[] = [];
  for (const index of indexes) {
    const { privkey } = Slip10.derivePath(Slip10Curve.Secp256k1, seed, makeCosmoshubPath(index));
    const { pubkey } = await Secp256k1.makeKeypair(privkey);
    const compressed = Secp256k1.compressPubkey(pubkey);
    keys.push({
      index,
      address: toAccountAddress(rawSecp256k1PubkeyToRawAddress(compressed)),
      pubkey: compressed,
      privkey,
    });
  }
  return keys;
}

export interface ValidatorKey {
  pubkey: Uint8Array;
  /** CometBFT address: first 20 bytes of sha256(pubkey). */
  address: Uint8Array;
}

/** Deterministic consensus keys, so every devnet has the same validator set. */
export async function validatorKey(index: number): Promise<ValidatorKey> {
  const keypair = await Ed25519.makeKeypair(sha256(toAscii(`native-devnet validator ${index}`)));
  return { pubkey: keypair.pubkey, address: sha256(keypair.pubkey).slice(0, 20) };
}
