Feature: Pico CSS's documentation
  Semantic HTML styled by a class-less stylesheet.

  Scenario: The form example
    Given I open 'picocss-pico@1.5.13/package/docs/forms.html' in the browser
    When I type 'Margaret' into the 'First name' field
    And I type 'Hamilton' into the 'Last name' field
    Then I should see 'Margaret'
    And I should see 'Hamilton'

  Scenario: The documentation's navigation
    Given I open 'picocss-pico@1.5.13/package/docs/forms.html' in the browser
    Then I should see the 'Tables' link
    When I click the 'Tables' link
    Then I should see 'Tables'

  Scenario: A table's cells
    Given I open 'picocss-pico@1.5.13/package/docs/tables.html' in the browser
    Then I should see 'Heading'
    And I should see at least 2 'Cell'

  Scenario: Buttons
    Given I open 'picocss-pico@1.5.13/package/docs/buttons.html' in the browser
    Then I should see 'Buttons'
    And I should see the 'Submit' button
    When I scroll down until I see the 'Secondary' button
    Then I should see the 'Contrast' button
