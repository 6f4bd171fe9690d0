package embedded

import bolt "go.etcd.io/bbolt"

// PutRawTest stores body as test id's record as it is, bypassing the encoder, so that the
// conformance suite can plant a record that does not decode.
func PutRawTest(s *Store, id string, body []byte) error {
	return s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bTests).Put([]byte(id), body) })
}
