import { TextLink } from '~/components/ui/text-link.tsx'
import { LegalDocument, LegalSection } from './legal-document.tsx'

/** /privacy: static Privacy Policy (docs/product.md#privacy-and-terms: under 13 not addressed, 18 or older, cookies, marketing e-mail). */
export function PrivacyPage() {
  return (
    <LegalDocument title="Privacy Policy" updated="1 November 2026">
      <LegalSection title="1. What we collect">
        <p>
          Your e-mail address and a hash of your password; the WebDAV account you link (password stored encrypted);
          the music jobs you submit with their tags and files; the channels you follow and the videos you like, queue
          or watch.
        </p>
      </LegalSection>
      <LegalSection title="2. Why">
        <p>
          Only to run the service for you: signing you in, processing your jobs, delivering files and showing your
          feed. Your data is not sold.
        </p>
      </LegalSection>
      <LegalSection title="3. Cookies">
        <p>
          We use cookies. A session cookie (HttpOnly, valid for up to 30 days) keeps you signed in; without it the
          service cannot work. No advertising or tracking cookies are set.
        </p>
      </LegalSection>
      <LegalSection title="4. E-mail">
        <p>
          We send verification and password reset e-mails, and we may send you marketing e-mail about the service. Ask
          the operator to stop marketing e-mail at any time.
        </p>
      </LegalSection>
      <LegalSection title="5. Children">
        <p>
          The service is for users 18 or older (see the <TextLink to="/terms">Terms of Service</TextLink>). It does not
          address anyone under the age of 13 and does not knowingly collect data from children under 13. If you
          believe a child has given us data, contact the operator and it will be deleted.
        </p>
      </LegalSection>
      <LegalSection title="6. Keeping and deleting data">
        <p>
          Finished jobs and their files are removed after the retention period set by the operator. Ask the operator
          to delete your account and its data.
        </p>
      </LegalSection>
    </LegalDocument>
  )
}
